/** Small real files of every format Hearth translates itself, and the checks of their translations. */
import { strToU8, zipSync } from 'fflate';

const zip = (files: Record<string, string>) =>
  Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([n, t]) => [n, strToU8(t)]))));

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';

/** A Word paragraph of formatting runs (`[text, bold]`). */
export const docxParagraph = (runs: Array<[string, boolean]>) =>
  `<w:p><w:pPr><w:jc w:val="center"/></w:pPr>${runs
    .map(([t, b]) => `<w:r>${b ? '<w:rPr><w:b/></w:rPr>' : ''}<w:t xml:space="preserve">${t}</w:t></w:r>`)
    .join('')}</w:p>`;

export function docx(paragraphs: string[]): Buffer {
  return zip({
    '[Content_Types].xml':
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>${paragraphs.join('')}<w:sectPr><w:pgSz w:w="11906"/></w:sectPr></w:body></w:document>`,
    'word/styles.xml': `<w:styles ${W}><w:style w:styleId="Title"><w:name w:val="Title"/></w:style></w:styles>`,
  });
}

export function pptx(): Buffer {
  return zip({
    '[Content_Types].xml': '<Types/>',
    'ppt/presentation.xml': '<p:presentation/>',
    'ppt/slides/slide1.xml': `<p:sld ${A}><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:rPr b="1"/><a:t>Welcome home</a:t></a:r></a:p><a:p><a:r><a:t>Lights </a:t></a:r><a:r><a:rPr i="1"/><a:t>are on</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`,
  });
}

export function xlsx(): Buffer {
  return zip({
    '[Content_Types].xml': '<Types/>',
    'xl/workbook.xml': '<workbook/>',
    'xl/sharedStrings.xml':
      '<sst count="2"><si><t>Kitchen light</t></si><si><r><rPr><b/></rPr><t>Door</t></r><r><t> open</t></r></si></sst>',
    'xl/worksheets/sheet1.xml':
      '<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>42</v></c><c r="C1" t="inlineStr"><is><t>Garden</t></is></c></row></sheetData></worksheet>',
  });
}

/** Text formats: input, and what the fakes' upper-casing "translation" must give. */
export const TEXT_CASES: Array<{ name: string; input: string; expected: string }> = [
  {
    name: 'notice.txt',
    input: 'Hello world\n\n  The door is open.\r\n',
    expected: 'HELLO WORLD\n\n  THE DOOR IS OPEN.\r\n',
  },
  {
    name: 'page.html',
    input:
      '<!DOCTYPE html><html><head><title>Home</title><style>p{color:red}</style></head><body><p class="x">Hello <b>bright</b> world</p><p translate="no">Hearth</p></body></html>',
    expected:
      '<!DOCTYPE html><html><head><title>HOME</title><style>p{color:red}</style></head><body><p class="x">HELLO <b>BRIGHT</b> WORLD</p><p translate="no">Hearth</p></body></html>',
  },
  {
    name: 'movie.srt',
    input:
      '1\n00:00:01,000 --> 00:00:02,500\nHello <i>there</i>\n\n2\n00:00:03,000 --> 00:00:04,000\nGood night\n',
    expected:
      '1\n00:00:01,000 --> 00:00:02,500\nHELLO <i>THERE</i>\n\n2\n00:00:03,000 --> 00:00:04,000\nGOOD NIGHT\n',
  },
  {
    name: 'talk.vtt',
    input: 'WEBVTT\n\nNOTE keep me\n\ncue-1\n00:01.000 --> 00:02.000\nGood morning\n',
    expected: 'WEBVTT\n\nNOTE keep me\n\ncue-1\n00:01.000 --> 00:02.000\nGOOD MORNING\n',
  },
  {
    name: 'readme.md',
    input: '# Lights\n\n- Turn **on** the lamp\n\n```sh\nhearth start\n```\n\n| Room | State |\n|---|---|\n',
    expected:
      '# LIGHTS\n\n- TURN **ON** THE LAMP\n\n```sh\nhearth start\n```\n\n| ROOM | STATE |\n|---|---|\n',
  },
  {
    name: 'app.json',
    input:
      '{\n  "title": "Lights",\n  "count": 2,\n  "greeting": "Hello {name}",\n  "items": ["on", "off"]\n}\n',
    expected:
      '{\n  "title": "LIGHTS",\n  "count": 2,\n  "greeting": "HELLO {name}",\n  "items": ["ON", "OFF"]\n}\n',
  },
  {
    name: 'app.yaml',
    input: '# settings\ntitle: Lights # shown on top\nrooms:\n  - kitchen\n  - hall\nport: 8080\n',
    expected: '# settings\ntitle: LIGHTS # shown on top\nrooms:\n  - KITCHEN\n  - HALL\nport: 8080\n',
  },
  {
    name: 'messages.properties',
    input: '# UI\nwelcome=Welcome {0}\ndoor.open = The door\nempty=\n',
    expected: '# UI\nwelcome=WELCOME {0}\ndoor.open = THE DOOR\nempty=\n',
  },
  {
    name: 'Localizable.strings',
    input: '/* Title */\n"title" = "Good evening %@";\n',
    expected: '/* Title */\n"title" = "GOOD EVENING %@";\n',
  },
  {
    name: 'data.xml',
    input:
      '<?xml version="1.0"?>\n<rooms><room id="k">Kitchen</room><room>Hall &amp; stairs</room></rooms>\n',
    expected:
      '<?xml version="1.0"?>\n<rooms><room id="k">KITCHEN</room><room>HALL &amp; STAIRS</room></rooms>\n',
  },
  {
    name: 'strings.xlf',
    input:
      '<?xml version="1.0"?><xliff version="1.2"><file source-language="en" datatype="plaintext"><body><trans-unit id="1"><source>Hello <g id="1">world</g></source></trans-unit></body></file></xliff>',
    expected:
      '<?xml version="1.0"?><xliff version="1.2"><file source-language="en" datatype="plaintext" target-language="de"><body><trans-unit id="1"><source>Hello <g id="1">world</g></source><target>HELLO <g id="1">WORLD</g></target></trans-unit></body></file></xliff>',
  },
];
