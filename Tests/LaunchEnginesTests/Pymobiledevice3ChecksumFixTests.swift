import Foundation
import TestSupport
import Testing

@testable import LaunchEngines

/// The checksum fix loaded into every pymobiledevice3 sidecar, checked inside the pinned pymobiledevice3's
/// own Python: a segment whose pmd_net_proto checksum is wrong (0xFFFF where 0xFFFE is right; a phone
/// drops it and its retransmissions) gets the right one, in the module that assembles TCP segments too.
@Suite(
    .tags(.pymobiledevice3, .subprocess),
    .enabled(
        if: SidecarPython.path != nil, "pymobiledevice3 is not installed: run Scripts/bootstrap --with-pymobiledevice3")
)
struct Pymobiledevice3ChecksumFixTests {

    /// Found by comparing pmd_net_proto's checksum with a plain RFC 1071 sum on byte-skewed packets.
    static let script = """
        from pmd_net_proto.lib.inet_cksum import inet_cksum
        import pmd_net_proto.protocols.tcp.tcp__assembler as assembler
        data = bytes.fromhex("8aff5bfffefffffe98fe7efffeff0efffffffffffefefefefffffefffffeff63fffefefefefffeffffff33fff"
                             "ffefffffefffeffffc9fffffffddbfffefefffffffffeff")
        print(hex(inet_cksum(data, init=257758)), hex(assembler.inet_cksum(data, init=257758)))
        """

    @Test func theSidecarsPythonComputesTheRightChecksum() async throws {
        let python = try #require(SidecarPython.path)
        let broken = try await ChildProcess.run(python, ["-c", Self.script], environment: ["PYTHONPATH": ""])
        #expect(String(decoding: broken.stdout, as: UTF8.self) == "0xffff 0xffff\n", "\(broken.stderr)")
        let fixed = try await ChildProcess.run(
            python, ["-c", Self.script], environment: try Pymobiledevice3ChecksumFix.environment(adding: [:]))
        #expect(String(decoding: fixed.stdout, as: UTF8.self) == "0xfffe 0xfffe\n", "\(fixed.stderr)")
    }

    @Test func keepsAnExistingPythonPath() throws {
        let environment = try Pymobiledevice3ChecksumFix.environment(adding: ["PYTHONPATH": "/opt/mine"])
        let parts = (environment["PYTHONPATH"] ?? "").split(separator: ":")
        #expect(parts.count == 2 && parts.last == "/opt/mine")
        #expect(parts.first?.hasSuffix(".py") == false)
    }
}

/// The Python of the pymobiledevice3 the tests use (`.venv-pmd3`, or next to LAUNCHBENCH_PYMOBILEDEVICE3).
enum SidecarPython {
    static let repository = PackageRoot.url

    static let path: String? = Pymobiledevice3Locator.find(currentDirectory: repository.path, executablePath: nil)
        .map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("python3").path }
        .flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }
}
