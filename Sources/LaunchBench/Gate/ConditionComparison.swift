/// What the gate makes of the device conditions each side recorded (run.json's per-device `conditions.typical`):
/// every condition that differs is named; a difference past its bound makes the device's entries `not
/// comparable` (unless `--compare-anyway`), through the same path as a change of model or iOS version.
///
/// The bounds (Documentation/Commands.md, "compare"): charging on one side and not the other; battery
/// temperature more than 5 °C apart (WWDC 2019 "Optimizing App Launch" asks for a consistent device; a phone
/// above ~35 °C throttles); Low Power Mode or the thermal state different. Battery level (5 points or more),
/// free storage (1 GB or more) and uptime (a factor of two or more) are named only: how they move launch times
/// is not established.
package enum ConditionComparison {
    /// The largest difference in battery temperature (°C) that still compares.
    package static let temperatureBoundC = 5.0

    /// The differences between two devices' typical conditions: `blocking` (past a bound) and `named` (within
    /// them), each in words (`temperature 31.0 °C → 41.0 °C`). A condition either side did not report is no
    /// difference.
    package static func differences(baseline a: DeviceConditions, current b: DeviceConditions) -> (
        blocking: [String], named: [String]
    ) {
        var blocking: [String] = []
        var named: [String] = []
        if let x = a.charging, let y = b.charging, x != y {
            blocking.append("charging \(x ? "yes" : "no") → \(y ? "yes" : "no")")
        }
        if let x = a.temperatureC, let y = b.temperatureC, abs(x - y) >= 1 {
            let text = "temperature \(celsius(x)) → \(celsius(y))"
            if abs(x - y) > temperatureBoundC { blocking.append(text) } else { named.append(text) }
        }
        if let x = a.lowPowerMode, let y = b.lowPowerMode, x != y {
            blocking.append("Low Power Mode \(x ? "on" : "off") → \(y ? "on" : "off")")
        }
        if let x = a.thermalState, let y = b.thermalState, x != y { blocking.append("thermal state \(x) → \(y)") }
        if let x = a.batteryPercent, let y = b.batteryPercent, abs(x - y) >= 5 {
            named.append("battery \(fixed(x, 0)) % → \(fixed(y, 0)) %")
        }
        if let x = a.number(.storage), let y = b.number(.storage), abs(x - y) >= 1 {
            named.append("free storage \(fixed(x, 1)) GB → \(fixed(y, 1)) GB")
        }
        if let x = a.uptimeSeconds, let y = b.uptimeSeconds, max(x, y) >= 2 * min(x, y) {
            named.append("uptime \(fixed(x, 0)) s → \(fixed(y, 0)) s")
        }
        return (blocking, named)
    }

    private static func celsius(_ value: Double) -> String { "\(fixed(value, 1)) °C" }
    private static func fixed(_ value: Double, _ digits: Int) -> String {
        DecimalText.fixed(value, maxFractionDigits: digits)
    }
}

extension GateComparison {
    /// Names, per matched device, the conditions that differ between the sides' run.json; a difference past a
    /// bound goes through `markChanges` (not comparable unless `--compare-anyway`). Sides without recorded
    /// conditions (older runs, another driver) are left as they are.
    mutating func markConditionChanges(baseline: RunManifest?, current: RunManifest?) {
        var noted: Set<String> = []
        for index in entries.indices {
            let entry = entries[index]
            guard let old = baseline?.outcome(of: entry.baselineDevice.udid)?.conditions?.typical,
                let new = current?.outcome(of: entry.currentDevice.udid)?.conditions?.typical
            else { continue }
            let (blocking, named) = ConditionComparison.differences(baseline: old, current: new)
            entries[index].markChanges(blocking, compareAnyway: settings.compareAnyway)
            let device = entry.currentDevice
            if !named.isEmpty, noted.insert(device.udid).inserted {
                notes.append(
                    "\(device.name) (\(device.udid)): conditions differ from the baseline's, within the bounds that "
                        + "keep a comparison: \(named.joined(separator: ", ")).")
            }
        }
    }
}
