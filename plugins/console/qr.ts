/** A QR code of a text (a site's link) as an SVG document. */
import { renderSVG } from 'uqr';

export const uqr = (text: string): string => renderSVG(text, { ecc: 'M', border: 2 });
