import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// The Mach-O reader against the sample app's real binaries (`Scripts/make-sample-binaries`), with the
/// toolchain's `llvm-nm` and `llvm-objdump` as independent readers, and against broken files.
@Suite struct MachOFileTests {
    static let binaries = [
        "Sample", "Frameworks/SampleKit.framework/SampleKit",
        "Frameworks/SampleNetworking.framework/SampleNetworking", "Frameworks/libSampleAnalytics.dylib",
    ]

    static func url(_ binary: String) -> URL { PackageRoot.at("Fixtures/SampleApp/Sample.app/" + binary) }

    static func read(_ binary: String) throws -> MachOFile { try MachOFile.read(contentsOf: url(binary)) }

    /// The LLVM tools beside the toolchain's `swift` (the ones that built the binaries), not Debian's.
    static let toolchainBin: String? = ExternalTool.path(of: "swift").map {
        URL(fileURLWithPath: $0).resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    static var llvmToolsPresent: Bool {
        guard let toolchainBin else { return false }
        return ["llvm-nm", "llvm-objdump"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: toolchainBin + "/" + $0)
        }
    }

    static func tool(_ name: String, _ arguments: [String]) async throws -> String {
        let result = try await ExternalTool.run(try #require(toolchainBin) + "/" + name, arguments, usbmuxd: "")
        #expect(result.exitCode == 0, "\(name) \(arguments): \(result.standardError)")
        return result.standardOutput
    }

    @Test func readsTheSampleExecutable() throws {
        let file = try Self.read("Sample")
        #expect(file.textAddress == 0x1_0000_0000)
        #expect(!file.isArm64e)
        #expect(file.uuid != nil)
        let initializers = try #require(file.initializerOffsets)
        #expect(initializers.count == 2)
        #expect(
            initializers.compactMap(file.function(atOffset:)) == [
                "$s6Sample8AppSetupV16registerDefaultsyyFZ", "sample_configure_logging",
            ])
    }

    /// libSampleAnalytics is linked without local symbols: its static initializer is named by its function
    /// start alone.
    @Test func namesAStrippedInitializerByItsFunctionStart() throws {
        let file = try Self.read("Frameworks/libSampleAnalytics.dylib")
        let initializer = try #require(file.initializerOffsets?.first)
        #expect(!file.symbols.contains { $0.offset == initializer })
        #expect(file.function(atOffset: initializer) == "func_0x" + String(initializer, radix: 16))
        #expect(file.function(atOffset: initializer + 4) == "func_0x" + String(initializer, radix: 16) + "+0x4")
    }

    @Test func nearestPrecedingSymbolWithoutFunctionStarts() {
        let file = MachOFile(
            isArm64e: false, uuid: nil, textAddress: 0,
            symbols: [.init(name: "a", offset: 0x4000), .init(name: "b", offset: 0x4010)], functionStarts: [],
            initializerOffsets: [])
        #expect(file.function(atOffset: 0x3FFF) == nil)
        #expect(file.function(atOffset: 0x4000) == "a")
        #expect(file.function(atOffset: 0x4008) == "a+0x8")
        #expect(file.function(atOffset: 0x5000) == "b+0xff0")
    }

    /// Every `T` symbol `llvm-nm` lists is one the reader found, at the same address (but the mach header's
    /// own symbol, which is no function).
    @Test(
        .enabled(if: llvmToolsPresent, "llvm-nm / llvm-objdump are not beside the toolchain's swift"),
        arguments: binaries)
    func symbolsMatchLLVMNM(_ binary: String) async throws {
        let file = try Self.read(binary)
        let output = try await Self.tool("llvm-nm", ["--defined-only", Self.url(binary).path])
        let listed: [MachOFile.Symbol] = output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1] == "T", let address = UInt64(fields[0], radix: 16) else { return nil }
            let name = fields[2].hasPrefix("_") ? String(fields[2].dropFirst()) : String(fields[2])
            return name == "_mh_execute_header" ? nil : .init(name: name, offset: address - file.textAddress)
        }
        #expect(!listed.isEmpty)
        #expect(file.symbols == listed.sorted { ($0.offset, $0.name) < ($1.offset, $1.name) })
    }

    /// The function starts, the initializer pointers and the UUID are what `llvm-objdump` prints.
    @Test(
        .enabled(if: llvmToolsPresent, "llvm-nm / llvm-objdump are not beside the toolchain's swift"),
        arguments: binaries)
    func startsInitializersAndUUIDMatchLLVMObjdump(_ binary: String) async throws {
        let file = try Self.read(binary)
        let path = Self.url(binary).path
        let starts = try await Self.tool("llvm-objdump", ["--macho", "--function-starts", path])
        let listed = starts.split(separator: "\n").compactMap { UInt64($0.prefix(16), radix: 16) }
        #expect(file.functionStarts.map { $0 + file.textAddress } == listed)

        // `0x…8000 0x…4000 _name`: the slot, then the initializer's address.
        let section = try await Self.tool("llvm-objdump", ["--macho", "--section=__DATA_CONST,__mod_init_func", path])
        let pointers = section.split(separator: "\n").compactMap { line -> UInt64? in
            let fields = line.split(separator: " ")
            guard fields.count >= 2, fields[0].hasPrefix("0x"), fields[1].hasPrefix("0x") else { return nil }
            return UInt64(fields[1].dropFirst(2), radix: 16)
        }
        #expect(!pointers.isEmpty)
        #expect(file.initializerOffsets?.map { $0 + file.textAddress } == pointers)

        let headers = try await Self.tool("llvm-objdump", ["--macho", "--private-headers", path])
        let uuidLine = headers.split(separator: "\n").first {
            $0.trimmingCharacters(in: .whitespaces).hasPrefix("uuid ")
        }
        let uuid = try #require(uuidLine?.split(separator: " ").last)
        #expect(file.uuid?.uuidString == String(uuid))
    }

    /// A fat file's arm64 slice is the one read.
    @Test func readsTheArm64SliceOfAFatFile() throws {
        let thin = try Data(contentsOf: Self.url("Frameworks/SampleKit.framework/SampleKit"))
        func big(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        // Two slices: x86_64 (garbage) first, then arm64 at 0x4000.
        var fat = big(0xCAFE_BABE) + big(2)
        fat += big(0x0100_0007) + big(3) + big(0x1000) + big(16) + big(12)
        fat += big(0x0100_000C) + big(0) + big(0x4000) + big(UInt32(thin.count)) + big(14)
        fat += [UInt8](repeating: 0, count: 0x1000 - fat.count) + [UInt8](repeating: 0xEE, count: 16)
        fat += [UInt8](repeating: 0, count: 0x4000 - fat.count)
        let file = try MachOFile.read(Data(fat) + thin, path: "fat")
        #expect(file == (try MachOFile.read(thin, path: "thin")))
    }

    @Test(arguments: [
        (
            "ELF", Data([0x7F, 0x45, 0x4C, 0x46] + [UInt8](repeating: 0, count: 60)),
            "not a 64-bit little-endian Mach-O"
        ),
        ("32-bit", Data([0xCE, 0xFA, 0xED, 0xFE] + [UInt8](repeating: 0, count: 60)), "a 32-bit Mach-O"),
        ("text", Data("placeholder dylib\n".utf8), "not a 64-bit little-endian Mach-O"),
        ("empty", Data(), "the magic number"),
        ("x86_64", Data([0xCF, 0xFA, 0xED, 0xFE, 0x07, 0, 0, 0x01] + [UInt8](repeating: 0, count: 56)), "not arm64"),
    ])
    func refusesWhatIsNotAnArm64MachO(_ name: String, _ data: Data, _ reason: String) {
        #expect {
            try MachOFile.read(data, path: name)
        } throws: { error in
            guard case .badMachO(let path, let said) = error as? LaunchBenchError else { return false }
            return path == name && said.contains(reason)
        }
    }

    /// Thousands of truncated and byte-flipped copies of each sample binary: each is read or refused with a
    /// named `badMachO`, never a trap. Seeded, so a failure reproduces.
    @Test(arguments: binaries)
    func survivesMutatedAndTruncatedBinaries(_ binary: String) throws {
        let original = [UInt8](try Data(contentsOf: Self.url(binary)))
        var random = SeededRandom(seed: 0x3A_C40, parts: [binary])
        // Where the interesting fields are: the header and load commands, and the symbol and string tables.
        let headerEnd = min(original.count, 32 + 4096)
        var refused = 0
        for round in 0..<1500 {
            var bytes = original
            switch round % 3 {
            case 0:
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(original.count))))
            case 1:
                for _ in 0..<(1 + random.next() % 8) {
                    let index = Int(random.next() % UInt64(headerEnd))
                    bytes[index] = UInt8(truncatingIfNeeded: random.next())
                }
            default:
                let index = Int(random.next() % UInt64(original.count - 8))
                let value = [UInt8](repeating: 0xFF, count: 4) + [0x7F, 0xFF, 0xFF, 0xFF]
                bytes.replaceSubrange(index..<(index + 8), with: value.shuffled(using: &random))
            }
            do {
                _ = try MachOFile.read(Data(bytes), path: "mutant \(round)")
            } catch {
                guard case .badMachO(let path, let reason) = error else {
                    Issue.record("round \(round): \(error)")
                    continue
                }
                #expect(path == "mutant \(round)" && !reason.isEmpty)
                refused += 1
            }
        }
        // Most truncations cut the tables off: a fuzzer that never reaches a refusal tests nothing.
        #expect(refused > 300)
    }
}
