import LaunchBench
import Testing

@Suite struct USBMuxAddressTests {
    @Test(arguments: [
        ("UNIX:/tmp/lab/usbmuxd.sock", USBMuxAddress.unix(path: "/tmp/lab/usbmuxd.sock")),
        ("UNIX:relative.sock", .unix(path: "relative.sock")),
        ("devicelab.local:27015", .tcp(host: "devicelab.local", port: 27015)),
        ("127.0.0.1:1", .tcp(host: "127.0.0.1", port: 1)),
        ("[::1]:65535", .tcp(host: "::1", port: 65535)),
    ])
    func parsesTheForms(text: String, expected: USBMuxAddress) {
        #expect(USBMuxAddress(text) == expected)
        // The value written back to USBMUXD_SOCKET_ADDRESS reads the same way.
        #expect(USBMuxAddress(expected.description) == expected)
    }

    @Test(arguments: ["", "UNIX:", "no-port", "host:", ":27015", "host:0", "host:65536", "host:12a", "[]:80"])
    func rejectsWhatLibusbmuxdWouldIgnore(text: String) {
        #expect(USBMuxAddress(text) == nil)
    }

    @Test func portZeroIsAnyFreePortForAListenerOnly() {
        #expect(USBMuxAddress("127.0.0.1:0", anyPort: true) == .tcp(host: "127.0.0.1", port: 0))
        #expect(USBMuxAddress("[::1]:0", anyPort: true) == .tcp(host: "::1", port: 0))
        #expect(USBMuxAddress("127.0.0.1:0") == nil)
        #expect(USBMuxAddress("host name:80", anyPort: true) == nil)
    }

    @Test func describesIPv6WithBrackets() {
        #expect(USBMuxAddress.tcp(host: "fe80::1", port: 27015).description == "[fe80::1]:27015")
        #expect(USBMuxAddress.unix(path: "/x").description == "UNIX:/x")
    }
}
