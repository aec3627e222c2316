import Foundation
import TestSupport
import Testing

/// The built `launchbench` given paths whose names are not UTF-8 (passed as raw bytes through a shell): it
/// says so and writes nothing, rather than "not found" for an app that exists or an `--output` folder under
/// another name.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(2))) struct NonUTF8ArgumentTests {
    @Test func aLatin1AppPathAndOutputAreRefusedUnchanged() async throws {
        let folder = EndToEnd.temporaryFolder("latin1")
        // $1: the folder; the app and output names end in byte 0xE9 (é in Latin-1).
        let script = """
            app="$1/caf$(printf '\\351').app"; mkdir -p "$app"
            exec "$0" run "$app" --output "$1/out$(printf '\\351')"
            """
        let child = try ChildProcess(
            executable: "/bin/bash", arguments: ["-c", script, try LaunchbenchCLI.executable(), folder.path],
            environment: ["NO_COLOR": "1", "USBMUXD_SOCKET_ADDRESS": "UNIX:/nonexistent/usbmuxd"])
        #expect(try await child.waitForExit(timeout: .seconds(60)) == 64, "\(child.standardError)")
        #expect(child.standardError.contains("is not valid UTF-8"), "\(child.standardError)")
        #expect(child.standardError.contains("Argument 2"), "\(child.standardError)")
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(written.count == 1, "\(written)")  // the app only: no output folder under any name
    }
}
