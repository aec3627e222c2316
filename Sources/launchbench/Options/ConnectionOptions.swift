import ArgumentParser
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
    var address: USBMuxAddress? { usbmuxd.flatMap(USBMuxAddress.init) }

    func validate() throws {
        if let usbmuxd, USBMuxAddress(usbmuxd) == nil {
            throw ValidationError(
                "Invalid --usbmuxd value '\(usbmuxd)': use UNIX:/path/to/socket, host:port or [v6addr]:port "
                    + "(port 1-65535).")
        }
    }

    /// Points libimobiledevice at the chosen usbmuxd: `--usbmuxd` wins over the environment's
    /// USBMUXD_SOCKET_ADDRESS, which wins over the system daemon. Call before the first device call.
    func apply() {
        if let address { USBMuxAddress.use(address) }
    }
}
