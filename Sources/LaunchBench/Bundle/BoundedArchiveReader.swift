import Foundation
import ZIPFoundation

/// Reads entries of an `.ipa` into memory, never more than a cap per entry and in all: a 2 MB `.ipa` whose
/// Info.plist inflates to 2 GiB must be refused by its header, and one whose header lies must be stopped at
/// the cap while inflating, not after. The archive is never unpacked to disk.
///
/// An app's Info.plist is a few KB (large real ones are under 1 MB) and the emulator's profile smaller
/// still, so 8 MiB an entry and 32 MiB in all leave room for any real bundle.
struct BoundedArchiveReader {
    /// The most one entry may inflate to.
    var entryLimit: Int
    /// The most all entries read together may inflate to.
    var totalLimit: Int
    /// Bytes read so far.
    private(set) var total = 0

    /// The default caps: 8 MiB an entry, 32 MiB in all.
    static let defaultEntryLimit = 8 << 20
    /// See ``defaultEntryLimit``.
    static let defaultTotalLimit = 32 << 20

    /// A reader with these caps.
    init(entryLimit: Int = defaultEntryLimit, totalLimit: Int = defaultTotalLimit) {
        self.entryLimit = entryLimit
        self.totalLimit = totalLimit
    }

    /// Why an entry was not read.
    package enum Refusal: Error, Sendable, Equatable {
        /// Its header declares more than the cap (nothing was inflated).
        case declaredTooLarge(path: String, declared: UInt64, limit: Int)
        /// It inflated past its declared size or the cap (inflating was stopped there).
        case inflatesBeyond(path: String, declared: UInt64, limit: Int)
        /// It cannot be inflated (corrupt data, a checksum mismatch).
        case unreadable(path: String, reason: String)

        /// What went wrong, in words: the entry, the sizes, why it is refused.
        package var reason: String {
            switch self {
            case .declaredTooLarge(let path, let declared, let limit):
                return "\(path) declares \(declared) bytes unpacked, more than the \(Self.size(limit)) launchbench "
                    + "reads of one entry (a real one is a few KB): the archive is refused unread"
            case .inflatesBeyond(let path, let declared, let limit):
                return "\(path) inflates beyond its declared \(declared) bytes (or the \(Self.size(limit)) cap): "
                    + "the archive's headers do not match its data; reading was stopped there"
            case .unreadable(let path, let reason):
                return "\(path) cannot be unpacked (\(reason))"
            }
        }

        private static func size(_ bytes: Int) -> String {
            bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
        }
    }

    private struct Stop: Error {}

    /// Inflates `entry` of `archive` into memory within the caps.
    /// - Throws: ``Refusal``.
    mutating func read(_ entry: Entry, from archive: Archive) throws(Refusal) -> Data {
        let declared = entry.uncompressedSize
        let limit = min(entryLimit, totalLimit - total)
        guard declared <= UInt64(max(limit, 0)) else {
            throw .declaredTooLarge(path: entry.path, declared: declared, limit: limit)
        }
        let allowed = Int(declared)
        var data = Data()
        data.reserveCapacity(allowed)
        do {
            _ = try archive.extract(entry, skipCRC32: false) { chunk in
                guard data.count + chunk.count <= allowed else { throw Stop() }
                data.append(chunk)
            }
        } catch is Stop {
            throw .inflatesBeyond(path: entry.path, declared: declared, limit: limit)
        } catch {
            throw .unreadable(path: entry.path, reason: "\(error)")
        }
        total += data.count
        return data
    }
}
