import ArgumentParser
import Foundation
import LaunchBench
import MobileDevice

/// `--usbmuxd ADDRESS`: which usbmuxd every device command talks to.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .customLong("usbmuxd"),
        help: ArgumentHelp(
            "usbmuxd to use: UNIX:/path/to/socket or host:port (a device lab elsewhere, [v6addr]:port for IPv6).",
            discussion:
                "Default: the environment's USBMUXD_SOCKET_ADDRESS, else the system usbmuxd at /var/run/usbmuxd.",
            valueName: "address"))
    var usbmuxd: String?

    /// The parsed `--usbmuxd` value (`nil` when the option was not given).
    var address: USBMuxAddress? { usbmuxd.flatMap { USBMuxAddress($0) } }

    func validate() throws {
        if let usbmuxd, USBMuxAddress(usbmuxd) == nil {
            throw ValidationError(
                "Invalid --usbmuxd value '\(usbmuxd)': use UNIX:/path/to/socket, host:port or [v6addr]:port "
                    + "(port 1-65535).")
        }
        // Without --usbmuxd the environment decides; a value libusbmuxd cannot parse would silently fall back
        // to the system daemon and be reported as "usbmuxd not running", so it is refused like a bad --usbmuxd.
        let variable = USBMuxAddress.environmentVariable
        if usbmuxd == nil, let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty,
            USBMuxAddress(value) == nil
        {
            throw ValidationError(
                "Invalid \(variable) '\(value)' in the environment: use UNIX:/path/to/socket, host:port or "
                    + "[v6addr]:port (port 1-65535), unset it for the system usbmuxd, or pass --usbmuxd.")
        }
    }

    /// Points libimobiledevice at the chosen usbmuxd and returns it: `--usbmuxd` wins over the environment's
    /// USBMUXD_SOCKET_ADDRESS, which wins over the system daemon (`nil`). Call before the first device call;
    /// everything else that needs the address (device locks, sidecars) gets this value, not the environment.
    func apply() -> USBMuxAddress? {
        if let address { USBMuxAddress.use(address) }
        return USBMuxAddress.configured
    }
}
