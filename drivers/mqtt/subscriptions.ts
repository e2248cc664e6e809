/** One subscription per exact topic on the link, whatever the number of devices publishing there. */
import type { MessageHandler, MqttLink } from './link.ts';

export class Subscriptions {
  readonly #subs = new Map<string, Promise<() => Promise<void>>>();
  readonly #handler: MessageHandler;
  #link: MqttLink | null = null;

  constructor(handler: MessageHandler) {
    this.#handler = handler;
  }

  attach(link: MqttLink | null): void {
    this.#link = link;
    this.#subs.clear();
  }

  add(topic: string): void {
    if (!this.#link || this.#subs.has(topic)) return;
    this.#subs.set(topic, this.#link.subscribe(topic, this.#handler));
  }

  remove(topic: string): void {
    const s = this.#subs.get(topic);
    this.#subs.delete(topic);
    void s?.then((u) => u()).catch(() => {});
  }

  /** Resolves once every subscription made so far is in place. */
  async ready(): Promise<void> {
    await Promise.all(this.#subs.values());
  }
}
