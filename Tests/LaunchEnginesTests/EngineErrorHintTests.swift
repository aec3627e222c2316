import LaunchBench
import Testing

@testable import LaunchEngines

/// The fix each failure message ends with, from what pymobiledevice3 11.45.0 really prints.
@Suite struct EngineErrorHintTests {
    static let udid = "00008120-0011223344556677"

    @Test func aRefusedCoreDeviceProxyIsNotMistakenForTheTunneldCase() {
        // Its words when lockdown refuses CoreDeviceProxy (they mention tunneld too).
        let log =
            "INFO CoreDeviceProxy unavailable (iOS < 17.4); falling back to RemotePairing over bonjour | ERROR "
            + "No-root userspace tunnel unavailable: the device exposes no CoreDeviceProxy lockdown service (needs "
            + "iOS 17.4+) and no RemotePairing service was found over bonjour. Enable Wi-Fi for the device and host "
            + "on the same network, or run a privileged kernel tunnel via `pymobiledevice3 remote tunneld`."
        let hint = EngineError.hint(log, udid: Self.udid)
        #expect(hint.contains("refused the tunnel service (CoreDeviceProxy)"))
        #expect(hint.contains("iOS 17.4 or later"))
    }

    @Test func aMissingTunneldNamesTheRootDaemonAndTheSetting() {
        let hint = EngineError.hint(
            "ERROR Unable to connect to Tunneld. You can start one using: sudo python3 -m pymobiledevice3 remote tunneld",
            udid: Self.udid)
        #expect(hint.contains("sudo pymobiledevice3 remote tunneld"))
        #expect(hint.contains("--tunneld PORT"))
    }

    @Test func aSilentForwarderOverATunnelSaysMountTheDeveloperDiskImage() {
        let error = EngineError.launchThroughSidecar(
            udid: Self.udid, detail: "closed the connection before replying (recv: Connection reset by peer)", log: "",
            logPath: "/tmp/x.log", kind: .launchRefused, tunnelled: true)
        let text = error.errorDescription ?? ""
        #expect(text.contains("it said nothing"))
        #expect(text.contains("pymobiledevice3 mounter auto-mount --udid \(Self.udid)"))
        // Through lockdown (iOS ≤ 16) the same words do not mean a missing debugproxy.
        let lockdown = EngineError.launchThroughSidecar(
            udid: Self.udid, detail: "closed the connection before replying", log: "", logPath: "/tmp/x.log",
            kind: .launchRefused)
        #expect(!(lockdown.errorDescription ?? "").contains("mounter"))
        // A forwarded connection that reached debugproxy and broke later is not a missing DDI.
        let later = EngineError.launchThroughSidecar(
            udid: Self.udid, detail: "closed the connection before replying",
            log: "INFO connection established from ('127.0.0.1', 60546)", logPath: "/tmp/x.log", kind: .launchRefused,
            tunnelled: true)
        #expect(!(later.errorDescription ?? "").contains("mounter"))
    }
}
