import Foundation

extension AppBundle {
    /// A digest of the bundle's bytes: every regular file's path (relative to the bundle) and contents, in
    /// path order, for an `.app` folder; the file itself for an `.ipa`. Two copies of one build have the same
    /// digest wherever they lie, which is how `run NEW --against BASE` tells an A/A run (the same build twice).
    /// FNV-1a over 64 bits: it tells builds apart, it is no security check.
    /// - Throws: `LaunchBenchError.notAnApp` when a file of the bundle cannot be read.
    package func contentDigest() throws -> String {
        var hash = FNV1a()
        do {
            if packaging == .ipa {
                try hash.add(fileAt: url)
            } else {
                for path in try Self.regularFiles(under: url) {
                    hash.add(Data(path.utf8))
                    try hash.add(fileAt: url.appendingPathComponent(path))
                }
            }
        } catch {
            throw LaunchBenchError.notAnApp(
                path: url.path, reason: "a file could not be read (\(error.localizedDescription))")
        }
        return String(hash.value, radix: 16)
    }

    /// The regular files under `root`, as paths relative to it, sorted (symbolic links are named, not followed).
    private static func regularFiles(under root: URL) throws -> [String] {
        let manager = FileManager.default
        guard let paths = manager.subpaths(atPath: root.path) else { return [] }
        return paths.filter { path in
            let attributes = try? manager.attributesOfItem(atPath: root.appendingPathComponent(path).path)
            return attributes?[.type] as? FileAttributeType != .typeDirectory
        }.sorted()
    }
}

/// FNV-1a, 64 bits, fed in pieces (``stableHash(_:)`` for one string).
private struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ data: Data) {
        for byte in data {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01B3
        }
        // A separator, so that the pieces' boundaries count.
        value ^= 0xff
        value &*= 0x0000_0100_0000_01B3
    }

    mutating func add(fileAt url: URL) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            for byte in chunk {
                value ^= UInt64(byte)
                value &*= 0x0000_0100_0000_01B3
            }
        }
        value ^= 0xff
        value &*= 0x0000_0100_0000_01B3
    }
}
