// Installation tokens at rest: AES-GCM under TOKEN_KEY (spec 1 part 5.9). A changed key makes
// every stored token unreadable, which schedules report as `token_unreadable` until rotation.

/** Seals and opens tokens with one key. */
export class TokenBox {
  #key: Promise<CryptoKey>;
  constructor(rawKey: Uint8Array) {
    this.#key = crypto.subtle.importKey(
      "raw",
      rawKey as BufferSource,
      "AES-GCM",
      false,
      ["encrypt", "decrypt"],
    );
  }

  /** base64 of IV (12 bytes) followed by the ciphertext. */
  async seal(token: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const cipher = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: "AES-GCM", iv },
        await this.#key,
        new TextEncoder().encode(token),
      ),
    );
    const joined = new Uint8Array(iv.length + cipher.length);
    joined.set(iv);
    joined.set(cipher, iv.length);
    return btoa(String.fromCharCode(...joined));
  }

  /** The token, or null when it was sealed under another key or is damaged. */
  async open(sealed: string): Promise<string | null> {
    try {
      const bytes = Uint8Array.from(atob(sealed), (c) => c.charCodeAt(0));
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: bytes.slice(0, 12) },
        await this.#key,
        bytes.slice(12),
      );
      return new TextDecoder().decode(plain);
    } catch {
      return null;
    }
  }
}
