import Foundation
import Testing
import ZIPFoundation

@testable import LaunchBench

/// A small `.ipa` must not make launchbench inflate gigabytes: entries beyond the cap are refused by their
/// header, and an entry whose header lies is stopped while inflating.
@Suite struct BoundedArchiveReaderTests {
    /// An `.ipa` whose Info.plist is `size` bytes: a real plist padded with spaces (compresses to almost nothing).
    static func ipa(infoPlistBytes size: Int) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-\(UUID().uuidString).ipa")
        let plist =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict><key>CFBundleIdentifier</key>"
            + "<string>com.example.big</string><key>CFBundleExecutable</key><string>Big</string></dict></plist>"
        var data = Data(plist.utf8)
        data.append(Data(repeating: 0x20, count: max(0, size - data.count)))
        let archive = try Archive(url: url, accessMode: .create)
        try archive.addEntry(
            with: "Payload/Big.app/Info.plist", type: .file, uncompressedSize: Int64(data.count),
            compressionMethod: .deflate
        ) { position, chunk in data.subdata(in: Int(position)..<Int(position) + chunk) }
        return url
    }

    @Test func aPlistBeyondTheCapIsRefusedByItsHeaderNamingTheEntry() throws {
        let url = try Self.ipa(infoPlistBytes: 9 << 20)
        #expect((try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0) < 100_000)
        do {
            _ = try AppBundle(contentsOf: url)
            Issue.record("a 9 MiB Info.plist was read")
        } catch LaunchBenchError.notAnApp(_, let reason) {
            #expect(reason.contains("Payload/Big.app/Info.plist declares 9437184 bytes unpacked"), "\(reason)")
            #expect(reason.contains("8 MiB"))
        }
    }

    @Test func anOrdinaryPlistPaddedBelowTheCapIsRead() throws {
        let app = try AppBundle(contentsOf: try Self.ipa(infoPlistBytes: 1 << 20))
        #expect(app.bundleID == "com.example.big")
    }

    /// The central directory and local header claim 100 bytes; the data inflates to 1 MiB. Reading stops at
    /// the declared size instead of trusting the data.
    @Test func anEntryThatInflatesBeyondItsDeclaredSizeIsStopped() throws {
        let url = try Self.ipa(infoPlistBytes: 1 << 20)
        var bytes = [UInt8](try Data(contentsOf: url))
        var patched = 0
        for offset in 0..<(bytes.count - 46) {
            let signature =
                UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                | UInt32(bytes[offset + 3]) << 24
            // Local file header: uncompressed size at +22; central directory header: at +24.
            let field = signature == 0x0403_4B50 ? 22 : signature == 0x0201_4B50 ? 24 : nil
            guard let field else { continue }
            for (index, byte) in [UInt8(100), 0, 0, 0].enumerated() { bytes[offset + field + index] = byte }
            patched += 1
        }
        #expect(patched == 2)
        try Data(bytes).write(to: url)
        let archive = try Archive(url: url, accessMode: .read)
        let entry = try #require(archive["Payload/Big.app/Info.plist"])
        #expect(entry.uncompressedSize == 100)
        var reader = BoundedArchiveReader()
        #expect(throws: BoundedArchiveReader.Refusal.self) { try reader.read(entry, from: archive) }
        do {
            _ = try AppBundle(contentsOf: url)
            Issue.record("a lying entry was read")
        } catch LaunchBenchError.notAnApp(_, let reason) {
            #expect(reason.contains("inflates beyond its declared 100 bytes"), "\(reason)")
        }
    }

    @Test func theTotalCapCountsEveryEntryRead() throws {
        let url = try Self.ipa(infoPlistBytes: 4096)
        let archive = try Archive(url: url, accessMode: .read)
        let entry = try #require(archive["Payload/Big.app/Info.plist"])
        var reader = BoundedArchiveReader(entryLimit: 8192, totalLimit: 6000)
        _ = try reader.read(entry, from: archive)
        #expect(reader.total == 4096)
        #expect(throws: BoundedArchiveReader.Refusal.self) { try reader.read(entry, from: archive) }
    }
}
