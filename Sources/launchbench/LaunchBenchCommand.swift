import ArgumentParser
import LaunchBench

@main
struct LaunchBenchCommand: AsyncParsableCommand {
    /// SIGPIPE is ignored before anything runs: `launchbench run … | head` must not die mid-run.
    static func main() async {
        Terminal.ignoreBrokenPipes()
        await main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "launchbench",
        abstract: "Measure how long an iOS app takes to launch on real iPhones: pre-main and after-main, cold and warm.",
        discussion: """
            Devices are reached through usbmuxd and libimobiledevice. Use --usbmuxd UNIX:/path or host:port \
            (or USBMUXD_SOCKET_ADDRESS) to reach an emulated lab or a device host elsewhere.
            """,
        version: LaunchBenchVersion.current,
        subcommands: [
            Run.self,
            Devices.self,
            Demo.self,
            Emulator.self,
            Parse.self,
            Report.self,
            Compare.self,
            TrendCommand.self,
        ]
    )
}
