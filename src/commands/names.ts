// Kubernetes name validation for slash-command arguments. Slash-command text is typed by people and may be
// hostile (`<!channel>`, markup, megabytes of text); only names that Kubernetes itself would accept reach the
// triage engine or the drain advice, so nothing else is ever echoed unescaped or used as a lookup key.

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// CSI spec / ValidateCSIDriverName: 63 characters, alphanumeric at both ends, '-', '_', '.' inside.
const CSI_DRIVER = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** The kinds of name a slash command takes, with what Kubernetes requires of each. */
export type NameKind = 'namespace' | 'claim' | 'node' | 'driver';

const RULES: Record<NameKind, { re: RegExp; max: number; rule: string }> = {
  namespace: {
    re: LABEL,
    max: 63,
    rule: 'a DNS-1123 label: lower-case letters, digits and "-", at most 63 characters',
  },
  claim: {
    re: SUBDOMAIN,
    max: 253,
    rule: 'a DNS-1123 subdomain: lower-case letters, digits, "-" and ".", at most 253 characters',
  },
  node: {
    re: SUBDOMAIN,
    max: 253,
    rule: 'a DNS-1123 subdomain: lower-case letters, digits, "-" and ".", at most 253 characters',
  },
  driver: {
    re: CSI_DRIVER,
    max: 63,
    rule: 'a CSI driver name: letters, digits, "-", "_" and ".", at most 63 characters',
  },
};

/** Whether `name` is a valid Kubernetes name of this kind (length checked before the pattern, so cost is bounded). */
export function isValidName(kind: NameKind, name: string): boolean {
  const r = RULES[kind];
  return name.length > 0 && name.length <= r.max && r.re.test(name);
}

/** The human rule for a kind of name, for usage errors ("must be a DNS-1123 label: ..."). */
export function nameRule(kind: NameKind): string {
  return RULES[kind].rule;
}
