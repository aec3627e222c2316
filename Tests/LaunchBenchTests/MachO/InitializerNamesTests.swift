import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// Naming kdebug's static initializers: the pointer-authentication strip, the sample app's symbols, a dSYM,
/// the demangler, and the per-launch list a sample keeps.
@Suite struct InitializerNamesTests {
    /// Demangles the one Swift name of SampleKit, as `swift-demangle` prints it.
    struct FakeDemangler: SymbolDemangling {
        func demangle(_ names: [String]) -> [String: String] {
            var out: [String: String] = [:]
            for name in names where name == "$s9SampleKit5ThemeO9loadFontsyyFZ" {
                out[name] = "static SampleKit.Theme.loadFonts() -> ()"
            }
            return out
        }
    }

    static let device = "/private/var/containers/Bundle/Application/6F1C/Sample.app/"

    static func names(_ sources: InitializerSymbolSources = InitializerSymbolSources()) throws -> InitializerNames {
        InitializerNames.load(
            app: try AppBundle(contentsOf: PackageRoot.at("Fixtures/SampleApp/Sample.app")), sources: sources)
    }

    /// iOS 15–18's dyld traces the signed pointer (bits above the 39 user address bits); iOS 26's and a plain
    /// arm64 process's the plain one. Both give the same offset.
    @Test func stripsPointerAuthenticationBits() {
        let header: UInt64 = 0x1_0000_0000
        let plain = header + 0x4014
        let signed = plain | 0x2B5C << 39 | 0xA7 << 56
        #expect(InitializerAddress.offset(function: plain, header: header) == 0x4014)
        #expect(InitializerAddress.offset(function: signed, header: header) == 0x4014)
        // Below its image, or gigabytes past it: not this image's function.
        #expect(InitializerAddress.offset(function: header - 4, header: header) == nil)
        #expect(InitializerAddress.offset(function: header + (1 << 33), header: header) == nil)
    }

    @Test func namesTheSampleAppsInitializers() throws {
        let names = try Self.names(InitializerSymbolSources(demangler: FakeDemangler()))
        #expect(names.notes.isEmpty)
        #expect(
            Set(names.binaries.keys) == [
                "Sample", "Frameworks/SampleKit.framework/SampleKit",
                "Frameworks/SampleNetworking.framework/SampleNetworking", "Frameworks/libSampleAnalytics.dylib",
            ])
        let networking = try #require(names.binaries["Frameworks/SampleNetworking.framework/SampleNetworking"])
        let named = try #require(networking.initializerOffsets).map {
            names.function(
                imagePath: Self.device + "Frameworks/SampleNetworking.framework/SampleNetworking", offset: $0)
        }
        #expect(named == ["networking_warm_cache", "networking_start_reachability"])
        let kit = Self.device + "Frameworks/SampleKit.framework/SampleKit"
        #expect(names.function(imagePath: kit, offset: 0x4000) == "static SampleKit.Theme.loadFonts() -> ()")
        #expect(names.function(imagePath: kit, offset: 0x4004) == "static SampleKit.Theme.loadFonts() -> ()+0x4")
        // Stripped: named by its function start; outside the bundle: by offset.
        #expect(
            names.function(imagePath: Self.device + "Frameworks/libSampleAnalytics.dylib", offset: 0x4000)
                == "func_0x4000")
        #expect(names.function(imagePath: "/usr/lib/libSystem.B.dylib", offset: 0x1F30) == "0x1f30")
    }

    @Test func withoutADemanglerSwiftNamesStayMangled() throws {
        let names = try Self.names()
        #expect(
            names.function(imagePath: Self.device + "Frameworks/SampleKit.framework/SampleKit", offset: 0x4000)
                == "$s9SampleKit5ThemeO9loadFontsyyFZ")
    }

    /// A dSYM's companion with the binary's UUID names what the stripped binary cannot; one with another UUID
    /// is said to match nothing.
    @Test func aDSYMWithTheBinarysUUIDNamesItsFunctions() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dsym-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let dwarf = folder.appendingPathComponent("libSampleAnalytics.dylib.dSYM/Contents/Resources/DWARF")
        try FileManager.default.createDirectory(at: dwarf, withIntermediateDirectories: true)
        // The analytics dylib's own bytes with a local symbol added is more than a test needs: the executable's
        // symbols under the analytics UUID stand in for the companion's fuller table.
        let app = PackageRoot.at("Fixtures/SampleApp/Sample.app")
        var companion = try Data(contentsOf: app.appendingPathComponent("Sample"))
        let analytics = try MachOFile.read(
            contentsOf: app.appendingPathComponent("Frameworks/libSampleAnalytics.dylib"))
        let executable = try MachOFile.read(companion, path: "Sample")
        let uuidAt = try #require(Self.range(of: executable.uuid, in: companion))
        companion.replaceSubrange(uuidAt, with: withUnsafeBytes(of: try #require(analytics.uuid).uuid) { Data($0) })
        try companion.write(to: dwarf.appendingPathComponent("libSampleAnalytics.dylib"))

        let names = try Self.names(InitializerSymbolSources(dsym: folder))
        #expect(names.notes.isEmpty)
        let path = Self.device + "Frameworks/libSampleAnalytics.dylib"
        // The companion's symbol table (the executable's, here) names offset 0x4014.
        #expect(names.function(imagePath: path, offset: 0x4014) == "sample_configure_logging")

        // A build's dSYM that is not this build's: another UUID.
        companion.replaceSubrange(uuidAt, with: Data(repeating: 0x5A, count: 16))
        let stale = folder.appendingPathComponent("stale")
        try companion.write(to: stale)
        let other = try Self.names(InitializerSymbolSources(dsym: stale))
        #expect(other.notes.contains { $0.contains("matches no binary of the app by UUID") })
    }

    /// A launch's STATIC_INITIALIZER intervals become each image's function list in the sample.
    @Test func aSampleKeepsEachImagesFunctions() throws {
        let names = try Self.names()
        let thread: UInt64 = 0x77
        func event(_ us: UInt64, _ id: KdebugDebugID, _ function: KdebugFunction, _ args: [UInt64] = [])
            -> KdebugRecord
        {
            KdebugRecord(
                timestamp: us * 1000, debugID: KdebugDebugID(rawValue: id.rawValue | function.rawValue), args: args,
                threadID: thread)
        }
        let path = Self.device + "Frameworks/SampleNetworking.framework/SampleNetworking"
        let header: UInt64 = 0x1_0010_0000
        var records = [
            event(1, .traceDataExec, .none, [77]), event(2, .dyldBootstrapStart, .none),
            event(2, .dyldLaunchExecutable, .start, [1, 0x1_0000_0000]),
        ]
        records += Self.string(path, id: 9, at: 2, thread: thread)
        records += [
            event(2, .dyldUUIDMapA, .none, [0, 0, header, 0]), event(2, .dyldUUIDMapB, .none, [0, 9]),
            // Signed like iOS 18's dyld traces it.
            event(3, .dyldStaticInitializer, .start, [7, header, (header + 0x4000) | 0x1234 << 39]),
            event(1503, .dyldStaticInitializer, .end, [7]),
            event(1504, .dyldStaticInitializer, .start, [8, header, header + 0x4014]),
            event(1754, .dyldStaticInitializer, .end, [8]),
            event(1800, .dyldLaunchExecutable, .end, [1, 0, 0, 4]),
        ]
        let phases = try #require(DyldLaunchPhases(records: records, timebase: .nanoseconds))
        var sample = GateSamples.make()
        sample.initializers = [InitializerTime(image: "SampleNetworking", ms: 1.75)]
        KdebugSampling.nameInitializers(phases, in: &sample, names: names)
        #expect(
            sample.initializers?.first?.functions == [
                InitializerFunctionTime(function: "networking_warm_cache", ms: 1.5),
                InitializerFunctionTime(function: "networking_start_reachability", ms: 0.25),
            ])
    }

    /// TRACE_STRING_GLOBAL records naming string `id` for UUID_MAP_B.
    static func string(_ text: String, id: UInt64, at us: UInt64, thread: UInt64) -> [KdebugRecord] {
        let bytes = Array(text.utf8)
        func words(_ chunk: ArraySlice<UInt8>, _ count: Int) -> [UInt64] {
            let padded = Array(chunk) + [UInt8](repeating: 0, count: count * 8 - chunk.count)
            return (0..<count).map { word in
                (0..<8).reduce(UInt64(0)) { $0 | UInt64(padded[word * 8 + $1]) << (8 * UInt64($1)) }
            }
        }
        let global = KdebugDebugID.traceStringGlobal.rawValue
        var records = [
            KdebugRecord(
                timestamp: us * 1000,
                debugID: KdebugDebugID(rawValue: global | KdebugFunction.start.rawValue),
                args: [UInt64(KdebugDebugID.dyldUUIDMapB.rawValue), id] + words(bytes.prefix(16), 2), threadID: thread)
        ]
        var offset = 16
        while offset < bytes.count {
            let end = min(offset + 32, bytes.count)
            let function: KdebugFunction = end >= bytes.count ? .end : .none
            records.append(
                KdebugRecord(
                    timestamp: us * 1000, debugID: KdebugDebugID(rawValue: global | function.rawValue),
                    args: words(bytes[offset..<end], 4), threadID: thread))
            offset = end
        }
        return records
    }

    static func range(of uuid: UUID?, in data: Data) -> Range<Data.Index>? {
        guard let uuid else { return nil }
        return data.range(of: withUnsafeBytes(of: uuid.uuid) { Data($0) })
    }
}
