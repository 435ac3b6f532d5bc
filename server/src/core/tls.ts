// TLS facts shared by the nginx and HAProxy security rules.

const WEAK_ALIAS = /^(RC4|RC2|DES|3DES|MD5|NULL|eNULL|aNULL|EXP|EXPORT|EXPORT40|EXPORT56|LOW|ADH|AECDH|SSLv2)$/;
/** Key-exchange aliases that make a `+` combination forward-secret (`ECDHE+RSA` is RSA-signed ECDHE). */
const EPHEMERAL_KX = /^(ECDHE|EECDH|kECDHE|kEECDH|DHE|EDH|kDHE|kEDH|ECDHE-PSK|DHEPSK|ECDHEPSK)$/;

/**
 * The parts of an OpenSSL cipher string that enable broken ciphers: RC4, DES and 3DES, MD5 MACs,
 * export-grade, NULL encryption and anonymous (unauthenticated) key exchange, and static RSA key
 * exchange (`kRSA`, `RSA` without an ephemeral exchange: no forward secrecy, padding oracles).
 * A `+` combination is the intersection of its parts, so one weak part makes it weak (`DH+3DES`,
 * `RSA+3DES`). Excluded parts (`!RC4`, `-DES`) are not counted. TLS 1.3 suites (`TLS_...`) are all sound.
 */
export function weakCipherTokens(list: string): string[] {
  const out: string[] = [];
  for (const raw of list.split(/[:,\s]+/)) {
    if (!raw || raw.startsWith('!') || raw.startsWith('-')) continue;
    const t = raw.replace(/^\+/, '');
    if (t.startsWith('TLS_') || t.startsWith('@')) continue;
    const parts = t.split('+');
    if (
      parts.some((p) => WEAK_ALIAS.test(p)) ||
      (parts.some((p) => p === 'kRSA' || p === 'RSA') && !parts.some((p) => EPHEMERAL_KX.test(p))) ||
      /(^|-)(RC4|RC2|DES|DES-CBC3|EXP|NULL|MD5|ADH|AECDH)(-|$)/.test(t) ||
      /^(ALL|COMPLEMENTOFALL|COMPLEMENTOFDEFAULT)$/.test(t)
    ) {
      out.push(raw);
    }
  }
  // `ALL` (OpenSSL leaves eNULL out of it) is weak through the anonymous suites unless they are excluded
  const parts = list.split(/[:,\s]+/);
  if (parts.some((p) => p === '!aNULL' || p === '-aNULL' || p === '!NULL' || p === '!ADH'))
    return out.filter((t) => !/^(ALL|COMPLEMENTOFALL)$/.test(t));
  return out;
}
