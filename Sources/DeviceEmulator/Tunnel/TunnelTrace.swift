import Foundation

/// What the tunnel's TCP server did that a healthy loopback tunnel never needs: packets dropped,
/// segments after a gap, retransmissions, resets. Printed to stderr, one line each, when
/// `LAUNCHBENCH_TUNNEL_TRACE=1`, so a stalled launch through the tunnel can be explained afterwards.
enum TunnelTrace {
    static let isEnabled = ProcessInfo.processInfo.environment["LAUNCHBENCH_TUNNEL_TRACE"] == "1"

    static func note(_ text: @autoclosure () -> String) {
        guard isEnabled else { return }
        FileHandle.standardError.write(Data("tunnel-trace: \(text())\n".utf8))
    }
}
