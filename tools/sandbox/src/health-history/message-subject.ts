import type { LogEntry } from '../channels';

/** What a message received by a channel stand-in says about a position, when it names one. */
export interface MessageSubject {
  /** `alert` for a risk alert (its footer says `Alert <id>`), `notice` for anything else (an agent's events). */
  readonly kind: 'alert' | 'notice';
  /** The first line a reader sees (an alert's or an agent event's title). */
  readonly title: string;
  /** The same alert or event delivered on several channels shares this key: one marker for all of them. */
  readonly key: string;
}

/** `GABCDE…WXYZ`, as the notifications service shortens an address in the messages it renders. */
export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** True when the message names the address, in full or shortened. */
export function names(entry: LogEntry, address: string): boolean {
  return entry.text.includes(address) || entry.text.includes(shortAddress(address));
}

/** True when the message names a pool at all (`Pool: …`): then it concerns that pool only. */
export function namesAPool(entry: LogEntry): boolean {
  return /(^|\n)\s*Pool\W/.test(entry.text);
}

/**
 * Reads a delivered message's kind, title and its alert's identity: the footer's `Alert <id>` or `Agent event <id>` when
 * present (one alert fans out to every channel), otherwise the title itself.
 */
export function messageSubject(entry: LogEntry): MessageSubject {
  const lines = entry.text.split('\n').map((line) => line.trim());
  const title = (lines.find((line) => line.length > 0) ?? entry.channel).slice(0, 120);
  const id = /\b(Alert|Agent event) ([\w:-]+)/.exec(entry.text);
  return { kind: id?.[1] === 'Alert' ? 'alert' : 'notice', title, key: id ? `${id[1]} ${id[2]}` : title };
}
