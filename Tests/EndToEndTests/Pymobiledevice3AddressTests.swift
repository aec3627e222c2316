import Foundation
import LaunchBench
import LaunchEngines
import TestSupport
import Testing

/// The usbmuxd address launchbench hands a pymobiledevice3 sidecar, read by the real pymobiledevice3's
/// own resolver with the user's `USBMUXD_SOCKET_ADDRESS=UNIX:…` still in the inherited environment (issue 19:
/// the userspace tunnel reads that variable itself and crashed on the prefix).
@Suite(
    .tags(.emulator, .pymobiledevice3, .subprocess),
    .timeLimit(.minutes(1)),
    .enabled(
        if: Pymobiledevice3Python.path != nil,
        "pymobiledevice3 is not installed: run Scripts/bootstrap --with-pymobiledevice3 (or set LAUNCHBENCH_PYMOBILEDEVICE3)"
    ))
struct Pymobiledevice3AddressTests {
    /// What pymobiledevice3 makes of its environment: the address and family from `USBMUXD_SOCKET_ADDRESS`
    /// (the socket layer), then from `PYMOBILEDEVICE3_USBMUX` (the CLI's `--usbmux` default).
    static let script = """
        import os
        from pymobiledevice3.usbmux import MuxConnection
        for value in (None, os.environ.get("PYMOBILEDEVICE3_USBMUX")):
            address, family = MuxConnection._resolve_usbmux_address(value)
            print(address if isinstance(address, str) else "%s:%d" % address, family.name)
        """

    /// Runs the script with `environment` over this process's environment plus the user's `UNIX:` value,
    /// as `DebugserverSidecar` merges it.
    func resolve(_ environment: [String: String]) async throws -> (status: Int32?, output: String, errors: String) {
        let user = ["USBMUXD_SOCKET_ADDRESS": "UNIX:/tmp/user-lab/usbmuxd.sock", "PYMOBILEDEVICE3_USBMUX": ""]
        let child = try ChildProcess(
            executable: try #require(Pymobiledevice3Python.path), arguments: ["-c", Self.script],
            environment: user.merging(environment) { $1 })
        let status = try await child.waitForExit(timeout: .seconds(45))
        return (status, child.standardOutput, child.standardError)
    }

    @Test func aUnixSocketArrivesAsTheBarePathInBothVariables() async throws {
        let address = try #require(USBMuxAddress("UNIX:/tmp/emulated-lab/usbmuxd.sock"))
        let result = try await resolve(try Pymobiledevice3USBMux.environment(for: address))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "/tmp/emulated-lab/usbmuxd.sock AF_UNIX\n/tmp/emulated-lab/usbmuxd.sock AF_UNIX\n")
    }

    @Test func aTCPAddressArrivesAsHostAndPort() async throws {
        let result = try await resolve(
            try Pymobiledevice3USBMux.environment(for: USBMuxAddress.tcp(host: "127.0.0.1", port: 27015)))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "127.0.0.1:27015 AF_INET\n127.0.0.1:27015 AF_INET\n")
    }

    @Test func theUserFormLeftAloneIsWhatCrashedPymobiledevice3() async throws {
        // The failure launchbench's environment prevents, so the two tests above cannot pass by accident.
        let result = try await resolve(["PYMOBILEDEVICE3_USBMUX": "/tmp/user-lab/usbmuxd.sock"])
        #expect(result.status != 0)
        #expect(result.errors.contains("invalid literal for int()"))
    }
}

/// The Python beside the pymobiledevice3 that end-to-end tests use (its venv's interpreter).
enum Pymobiledevice3Python {
    static let path: String? = Pymobiledevice3EndToEnd.executable.flatMap { executable in
        let folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        return ["python", "python3"].map { folder.appendingPathComponent($0).path }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
