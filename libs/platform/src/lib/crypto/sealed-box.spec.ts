import { randomBytes } from 'node:crypto';
import { SealedBox } from './sealed-box';
import vectors from './sealed-box.vectors.json';

const key = (hex: string): Buffer => Buffer.from(hex, 'hex');

describe('SealedBox (AES-256-GCM at rest)', () => {
  it('opens what it sealed; the sealed form shows nothing of the value and takes a fresh IV each time', () => {
    const box = new SealedBox(randomBytes(32));
    const sealed = box.seal('rp_test_abcdefghijklmnopqrstuvwxyz012345');
    expect(sealed).toMatch(/^v1\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
    expect(sealed).not.toContain('rp_test_');
    expect(box.open(sealed)).toBe('rp_test_abcdefghijklmnopqrstuvwxyz012345');
    expect(box.seal('same')).not.toBe(box.seal('same'));
    expect(box.open(box.seal(''))).toBe('');
  });

  it('does not open under another key, nor once altered', () => {
    const box = new SealedBox(randomBytes(32));
    const sealed = box.seal('123:secret');
    expect(() => new SealedBox(randomBytes(32)).open(sealed)).toThrow();
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    expect(() => box.open(tampered)).toThrow();
  });

  it('refuses what is not sealed with its own words', () => {
    const box = new SealedBox(randomBytes(32), 'not a sealed key of this agent');
    for (const value of ['plain', 'v2.abc', 'v1.', 'v1.a.b', 'v1.AAAA', 'v1.AAAA.AAAA.AAAA']) {
      expect(() => box.open(value)).toThrow('not a sealed key of this agent');
    }
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new SealedBox(randomBytes(16))).toThrow('a sealing key must be 32 bytes');
  });

  it("still opens values sealed by the agent's and the notifications' former wrappers", () => {
    const agent = vectors.agentFirstForm;
    expect(new SealedBox(key(agent.keyHex)).open(agent.sealed)).toBe(agent.plain);
    const notifications = vectors.notificationsForm;
    expect(new SealedBox(key(notifications.keyHex)).open(notifications.sealed)).toBe(notifications.plain);
  });
});
