import Testing

/// What a suite needs beyond the code it tests, so that a lane can leave it out: `Scripts/test --unit` runs
/// none of them (it builds no emulator and no executable), `--quick` and the full run run them all. A suite
/// carries every tag that applies; a test inherits its suite's.
extension Tag {
    /// Starts an emulated lab or device on a socket (DeviceEmulator with NIO), in process or for a child.
    @Tag package static var emulator: Self
    /// Spawns a process: the built `launchbench`, a Debian tool, a fake helper script, `zip`, a shell.
    @Tag package static var subprocess: Self
    /// Runs the real pymobiledevice3 (installed by `Scripts/bootstrap`); skipped with a message without it.
    @Tag package static var pymobiledevice3: Self
}
