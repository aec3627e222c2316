/// diagnostics_relay as pure logic (§8): the reply to each request and what the device must do.
struct DiagnosticsRelayEngine {
    enum Effect: Equatable {
        case none
        /// Restart now, or once the client has disconnected (`WaitForDisconnect`).
        case restart(afterDisconnect: Bool)
        /// Shut down: the device goes away and does not come back by itself.
        case shutdown(afterDisconnect: Bool)
        /// `Goodbye`: the client is done with this connection.
        case goodbye
    }

    func handle(_ request: [String: Any]) -> (reply: [String: Any], effect: Effect) {
        let waits = (request["WaitForDisconnect"] as? Bool) ?? false
        switch request["Request"] as? String {
        case "Restart": return (["Status": "Success"], .restart(afterDisconnect: waits))
        case "Shutdown": return (["Status": "Success"], .shutdown(afterDisconnect: waits))
        case "Sleep": return (["Status": "Success"], .none)
        case "Goodbye": return (["Status": "Success"], .goodbye)
        case "All", "GasGauge", "WiFi", "NAND", "HDMI":
            return (
                ["Status": "Success", "Diagnostics": ["GasGauge": ["CycleCount": 127, "DesignCapacity": 1_821]]], .none
            )
        default:
            return (["Status": "UnknownRequest"], .none)
        }
    }
}
