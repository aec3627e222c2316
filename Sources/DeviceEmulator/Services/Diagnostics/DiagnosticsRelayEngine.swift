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

    /// The IORegistry power source's properties (`EmulatedConditions.powerSourceEntry`), read per request.
    var powerSource: () -> [String: Any] = { [:] }

    /// The class and names the power source answers to: pymobiledevice3 asks for the class `IOPMPowerSource`
    /// (services/diagnostics.py `get_battery`), idevicediagnostics users for the entry `AppleSmartBattery`.
    static let powerSourceNames: Set<String> = ["IOPMPowerSource", "AppleSmartBattery"]

    func handle(_ request: [String: Any]) -> (reply: [String: Any], effect: Effect) {
        let waits = (request["WaitForDisconnect"] as? Bool) ?? false
        switch request["Request"] as? String {
        case "Restart": return (["Status": "Success"], .restart(afterDisconnect: waits))
        case "Shutdown": return (["Status": "Success"], .shutdown(afterDisconnect: waits))
        case "Sleep": return (["Status": "Success"], .none)
        case "Goodbye": return (["Status": "Success"], .goodbye)
        case "IORegistry":
            // libimobiledevice 1.3.0 diagnostics_relay_query_ioregistry_entry sends EntryName and/or EntryClass
            // and copies the reply's Diagnostics; pymobiledevice3 reads Diagnostics.IORegistry. Any other entry
            // gets an empty dictionary (what a real phone answers for an unknown entry is unverified).
            let asked = [request["EntryName"], request["EntryClass"]].compactMap { $0 as? String }
            let entry = asked.contains(where: Self.powerSourceNames.contains) ? powerSource() : [:]
            return (["Status": "Success", "Diagnostics": ["IORegistry": entry]], .none)
        case "All", "GasGauge", "WiFi", "NAND", "HDMI":
            return (
                ["Status": "Success", "Diagnostics": ["GasGauge": ["CycleCount": 127, "DesignCapacity": 1_821]]], .none
            )
        default:
            return (["Status": "UnknownRequest"], .none)
        }
    }
}
