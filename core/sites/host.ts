// This module is browser compatible.
// Normalises a Host header to the domain stored for a site: lowercase, without port.

/** Answers the host name of a `Host` header, lowercased and without port, or null when unusable. */
export function hostName(header: string | undefined | null): string | null {
  if (!header) return null;
  const value = header.trim().toLowerCase();
  const bracketed = /^(\[[0-9a-f:.]+\])(:\d+)?$/.exec(value);
  if (bracketed) return bracketed[1];
  const plain = /^([a-z0-9.-]+)(:\d+)?$/.exec(value);
  if (!plain) return null;
  return plain[1].replace(/\.$/, "");
}
