/// A 64-bit FNV-1a digest of `text`'s UTF-8 bytes: the same on every run, process and platform (Swift's
/// `Hasher` is seeded per process), for names and identities derived from a UDID or a path.
package func stableHash(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01B3
    }
    return hash
}
