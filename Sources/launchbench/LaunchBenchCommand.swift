import ArgumentParser
import LaunchBench

@main
struct LaunchBenchCommand: AsyncParsableCommand {
    /// SIGPIPE is ignored before anything runs: `launchbench run … | head` must not die mid-run. An argument
    /// that is not UTF-8 is refused before parsing (`ArgumentBytes`), with exit 64.
    ///
    /// The one place errors are printed: a command throws, and this prints the message once, as `Error: …`,
    /// then exits with the error's `ExitStatus` (`CommandFailure`); ArgumentParser reports the rest (bad
    /// options with the usage and exit 64, `ExitCode` silently, any other error with exit 1).
    static func main() async {
        Terminal.ignoreBrokenPipes()
        if let problem = ArgumentBytes.problem(in: ArgumentBytes.current) {
            Terminal.note("Error: " + problem)
            exit(withError: ExitCode.validationFailure)
        }
        do {
            var command = try await asyncParseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            guard let failure = CommandFailure(reporting: error) else { exit(withError: error) }
            Terminal.note("Error: " + failure.message)
            exit(withError: ExitCode(failure.status))
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "launchbench",
        abstract:
            "Measure how long an iOS app takes to launch on real iPhones: pre-main and after-main, cold and warm.",
        discussion: """
            Devices are reached through usbmuxd and libimobiledevice. Use --usbmuxd UNIX:/path or host:port \
            (or USBMUXD_SOCKET_ADDRESS) to reach an emulated lab or a device host elsewhere.
            """,
        version: LaunchBenchVersion.current,
        subcommands: [
            Run.self,
            Devices.self,
            Doctor.self,
            Demo.self,
            Emulator.self,
            Parse.self,
            Report.self,
            Compare.self,
            Merge.self,
            TrendCommand.self,
        ]
    )
}
