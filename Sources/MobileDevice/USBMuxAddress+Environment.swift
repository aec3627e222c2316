import LaunchBench

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How this process's libimobiledevice is pointed at a usbmuxd: through its environment.
extension USBMuxAddress {
    /// The address libusbmuxd will use now: `USBMUXD_SOCKET_ADDRESS` when it parses, else `nil` (the system daemon).
    package static var configured: USBMuxAddress? {
        guard let raw = getenv(environmentVariable) else { return nil }
        return USBMuxAddress(String(cString: raw))
    }

    /// Points this process's libimobiledevice at `address` (or back at the system daemon for `nil`).
    /// Call it before the first device call, while no other thread uses the library: it sets the
    /// process environment.
    package static func use(_ address: USBMuxAddress?) {
        if let address {
            setenv(environmentVariable, address.description, 1)
        } else {
            unsetenv(environmentVariable)
        }
    }
}
