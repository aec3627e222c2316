import LaunchBench
import LaunchEngines
import Testing

@Suite struct Pymobiledevice3USBMuxTests {
    @Test func aUnixSocketIsTheBarePathInBothVariables() throws {
        let environment = try Pymobiledevice3USBMux.environment(for: .unix(path: "/tmp/lab/usbmuxd.sock"))
        #expect(
            environment == [
                "USBMUXD_SOCKET_ADDRESS": "/tmp/lab/usbmuxd.sock", "PYMOBILEDEVICE3_USBMUX": "/tmp/lab/usbmuxd.sock",
            ])
    }

    @Test func aTCPAddressIsHostColonPort() throws {
        let environment = try Pymobiledevice3USBMux.environment(for: .tcp(host: "lab-mini-1", port: 27015))
        #expect(environment["USBMUXD_SOCKET_ADDRESS"] == "lab-mini-1:27015")
        #expect(environment["PYMOBILEDEVICE3_USBMUX"] == "lab-mini-1:27015")
    }

    @Test func theSystemDaemonNeedsNothing() throws {
        #expect(try Pymobiledevice3USBMux.environment(for: nil).isEmpty)
    }

    @Test func whatPymobiledevice3CannotParseIsRefusedWithAdvice() {
        #expect(throws: Pymobiledevice3USBMux.Unsupported.self) {
            try Pymobiledevice3USBMux.environment(for: .tcp(host: "::1", port: 27015))
        }
        do {
            _ = try Pymobiledevice3USBMux.environment(for: .unix(path: "/tmp/a:b/usbmuxd.sock"))
            Issue.record("a path with ':' was accepted")
        } catch {
            #expect(error.description.contains("socat TCP-LISTEN"))
        }
    }
}
