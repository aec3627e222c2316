import Foundation

/// A device condition launchbench can read, require (`--require`) and compare (the gate).
package enum DeviceCondition: String, Sendable, Hashable, Codable, CaseIterable {
    /// Battery level, % (lockdown's `com.apple.mobile.battery` domain, `BatteryCurrentCapacity`).
    case battery
    /// Whether the battery is charging (same domain, `BatteryIsCharging`).
    case charging
    /// Battery temperature, °C (diagnostics_relay's IORegistry power-source entry, `Temperature` in 1/100 °C).
    case temperature
    /// Seconds since the device booted: no service libimobiledevice reaches gives it (libimobiledevice issue
    /// #1342, pymobiledevice3 issue #535), so the libimobiledevice driver reports it as not available.
    case uptime
    /// Free storage, GB (lockdown's `com.apple.disk_usage` domain, `AmountDataAvailable`).
    case storage
    /// Low Power Mode: no service libimobiledevice reaches is known to give it.
    case lowPowerMode = "low-power-mode"
    /// `ProcessInfo.thermalState` as the phone sees it: no service libimobiledevice reaches is known to give it.
    case thermalState = "thermal-state"

    /// How the condition reads in reports.
    var label: String {
        switch self {
        case .battery: return "battery"
        case .charging: return "charging"
        case .temperature: return "temperature"
        case .uptime: return "uptime"
        case .storage: return "free storage"
        case .lowPowerMode: return "Low Power Mode"
        case .thermalState: return "thermal state"
        }
    }
}

/// What the device said of its state just before an iteration's launches (`conditions` in samples.jsonl).
/// A condition the device did not report is absent (and named in `unavailable`), never zero.
package struct DeviceConditions: Sendable, Hashable, Codable {
    /// Battery level, % (0–100).
    package var batteryPercent: Double?
    /// Whether the battery was charging.
    package var charging: Bool?
    /// Battery temperature, °C.
    package var temperatureC: Double?
    /// Seconds since the device booted (see `DeviceCondition.uptime`).
    package var uptimeSeconds: Double?
    /// Free storage, bytes.
    package var freeStorageBytes: Double?
    /// Whether Low Power Mode was on.
    package var lowPowerMode: Bool?
    /// `nominal`, `fair`, `serious` or `critical`.
    package var thermalState: String?
    /// Conditions the device did not report, with why (`not offered by any service launchbench reaches`, an
    /// error).
    package var unavailable: [String: String]?
    /// The `--require` conditions that did not hold when the launch was taken (the wait ran out and the user
    /// chose to record); `nil` when they held or none were required.
    package var outsideRequirements: [String]?

    /// Conditions with the values given; the rest not reported.
    package init(
        batteryPercent: Double? = nil, charging: Bool? = nil, temperatureC: Double? = nil,
        uptimeSeconds: Double? = nil, freeStorageBytes: Double? = nil, lowPowerMode: Bool? = nil,
        thermalState: String? = nil, unavailable: [String: String]? = nil
    ) {
        self.batteryPercent = batteryPercent
        self.charging = charging
        self.temperatureC = temperatureC
        self.uptimeSeconds = uptimeSeconds
        self.freeStorageBytes = freeStorageBytes
        self.lowPowerMode = lowPowerMode
        self.thermalState = thermalState
        self.unavailable = unavailable
    }

    private enum CodingKeys: String, CodingKey {
        case batteryPercent = "battery_percent"
        case charging
        case temperatureC = "temperature_c"
        case uptimeSeconds = "uptime_s"
        case freeStorageBytes = "free_storage_bytes"
        case lowPowerMode = "low_power_mode"
        case thermalState = "thermal_state"
        case unavailable
        case outsideRequirements = "outside_requirements"
    }

    /// Reads the conditions field by field: an odd value (a newer tool's) costs that value only.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        batteryPercent = try? c.decodeIfPresent(Double.self, forKey: .batteryPercent)
        charging = try? c.decodeIfPresent(Bool.self, forKey: .charging)
        temperatureC = try? c.decodeIfPresent(Double.self, forKey: .temperatureC)
        uptimeSeconds = try? c.decodeIfPresent(Double.self, forKey: .uptimeSeconds)
        freeStorageBytes = try? c.decodeIfPresent(Double.self, forKey: .freeStorageBytes)
        lowPowerMode = try? c.decodeIfPresent(Bool.self, forKey: .lowPowerMode)
        thermalState = try? c.decodeIfPresent(String.self, forKey: .thermalState)
        unavailable = try? c.decodeIfPresent([String: String].self, forKey: .unavailable)
        outsideRequirements = try? c.decodeIfPresent([String].self, forKey: .outsideRequirements)
    }

    /// What a phone can report, per numeric condition: a value outside is a broken sensor or a hostile
    /// device, not a condition (1e308 % of battery would also overflow the typical value run.json keeps).
    /// Battery 0–100 %; temperature −40…+100 °C (a battery is unusable well inside that); uptime up to 30
    /// years; free storage up to 1 PB (phones hold at most 2 TB).
    package static let plausible: [DeviceCondition: (range: ClosedRange<Double>, unit: String)] = [
        .battery: (0...100, "%"), .temperature: (-40...100, "°C"), .uptime: (0...1e9, "s"),
        .storage: (0...1e15, "bytes"),
    ]

    /// The thermal states `ProcessInfo.ThermalState` has.
    package static let thermalStates: Set<String> = ["nominal", "fair", "serious", "critical"]

    /// These conditions with every value no phone can have taken out: it becomes not reported, with the value
    /// and the bounds in `unavailable`, so a hostile or broken reading never reaches run.json as a number.
    package func bounded() -> DeviceConditions {
        var copy = self
        func check(_ condition: DeviceCondition, _ value: Double?) -> Double? {
            guard let value, let (range, unit) = Self.plausible[condition] else { return value }
            guard !value.isFinite || !range.contains(value) else { return value }
            let low = DecimalText.fixed(range.lowerBound, maxFractionDigits: 0)
            let high =
                range.upperBound >= 1e9
                ? "\(range.upperBound)" : DecimalText.fixed(range.upperBound, maxFractionDigits: 0)
            copy.unavailable = (copy.unavailable ?? [:]).merging(
                [
                    condition.rawValue:
                        "the phone reported \(value) \(unit), outside \(low)…\(high) \(unit): not a real value"
                ]
            ) { _, new in new }
            return nil
        }
        copy.batteryPercent = check(.battery, batteryPercent)
        copy.temperatureC = check(.temperature, temperatureC)
        copy.uptimeSeconds = check(.uptime, uptimeSeconds)
        copy.freeStorageBytes = check(.storage, freeStorageBytes)
        if let state = thermalState, !Self.thermalStates.contains(state) {
            copy.thermalState = nil
            copy.unavailable = (copy.unavailable ?? [:]).merging(
                [DeviceCondition.thermalState.rawValue: "the phone reported an unknown thermal state"]
            ) { _, new in new }
        }
        return copy
    }

    /// The value of a numeric condition (`battery`, `temperature`, `uptime`, `storage` in GB); `nil` when not
    /// reported or not numeric.
    package func number(_ condition: DeviceCondition) -> Double? {
        switch condition {
        case .battery: return batteryPercent
        case .temperature: return temperatureC
        case .uptime: return uptimeSeconds
        case .storage: return freeStorageBytes.map { $0 / 1e9 }
        case .charging, .lowPowerMode, .thermalState: return nil
        }
    }

    /// Whether `condition` was reported.
    package func reports(_ condition: DeviceCondition) -> Bool {
        switch condition {
        case .charging: return charging != nil
        case .lowPowerMode: return lowPowerMode != nil
        case .thermalState: return thermalState != nil
        default: return number(condition) != nil
        }
    }

    /// The reported conditions in words, in a fixed order (`battery 80 %, charging, 31.5 °C, 12.3 GB free`);
    /// then, when some were not reported, which (`uptime, Low Power Mode, thermal state: not reported`).
    package var summary: String {
        var parts: [String] = []
        if let batteryPercent { parts.append("battery \(DecimalText.fixed(batteryPercent, maxFractionDigits: 0)) %") }
        if let charging { parts.append(charging ? "charging" : "not charging") }
        if let temperatureC { parts.append("\(DecimalText.fixed(temperatureC, maxFractionDigits: 1)) °C") }
        if let uptimeSeconds { parts.append("up \(DecimalText.fixed(uptimeSeconds, maxFractionDigits: 0)) s") }
        if let storage = number(.storage) {
            parts.append("\(DecimalText.fixed(storage, maxFractionDigits: 1)) GB free")
        }
        if let lowPowerMode { parts.append(lowPowerMode ? "Low Power Mode on" : "Low Power Mode off") }
        if let thermalState { parts.append("thermal state \(thermalState)") }
        let missing = DeviceCondition.allCases.filter { !reports($0) }.map(\.label)
        if !missing.isEmpty { parts.append(missing.joined(separator: ", ") + ": not reported") }
        if let outsideRequirements, !outsideRequirements.isEmpty {
            parts.append("taken outside --require " + outsideRequirements.joined(separator: ","))
        }
        return parts.joined(separator: ", ")
    }
}
