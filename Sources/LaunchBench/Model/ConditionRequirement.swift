import Foundation

/// One condition of `--require`: `charging`, `not-charging`, `low-power-mode-off`, or a bound on a number
/// (`battery>=50`, `temperature<=35`, `uptime>=300`, `storage>=5` in GB) or on the thermal state
/// (`thermal-state<=fair`).
package struct ConditionRequirement: Sendable, Hashable {
    /// How a value is held to the bound.
    package enum Comparison: String, Sendable, Hashable, CaseIterable {
        case atLeast = ">="
        case atMost = "<="
        case above = ">"
        case below = "<"
    }

    /// What is required.
    package enum Rule: Sendable, Hashable {
        /// The battery is (or is not) charging.
        case charging(Bool)
        /// Low Power Mode is off.
        case lowPowerModeOff
        /// A numeric condition against a bound.
        case bound(DeviceCondition, Comparison, Double)
        /// The thermal state at most this one (`nominal` < `fair` < `serious` < `critical`).
        case thermalAtMost(String)
    }

    /// The condition as the user wrote it (`battery>=50`).
    package var text: String
    /// What it requires.
    package var rule: Rule

    /// Which condition it reads.
    package var condition: DeviceCondition {
        switch rule {
        case .charging: return .charging
        case .lowPowerModeOff: return .lowPowerMode
        case .bound(let condition, _, _): return condition
        case .thermalAtMost: return .thermalState
        }
    }

    /// The thermal states in order, as `ProcessInfo.ThermalState` names them.
    package static let thermalStates = ["nominal", "fair", "serious", "critical"]
    /// The conditions a bound may be put on.
    static let numeric: [DeviceCondition] = [.battery, .temperature, .uptime, .storage]

    /// Whether `conditions` meet it: `true`, `false`, or `nil` when the device did not report the condition.
    package func holds(in conditions: DeviceConditions) -> Bool? {
        switch rule {
        case .charging(let wanted): return conditions.charging.map { $0 == wanted }
        case .lowPowerModeOff: return conditions.lowPowerMode.map { !$0 }
        case .thermalAtMost(let limit):
            guard let state = conditions.thermalState, let now = Self.thermalStates.firstIndex(of: state),
                let most = Self.thermalStates.firstIndex(of: limit)
            else { return nil }
            return now <= most
        case .bound(let condition, let comparison, let bound):
            guard let value = conditions.number(condition) else { return nil }
            switch comparison {
            case .atLeast: return value >= bound
            case .atMost: return value <= bound
            case .above: return value > bound
            case .below: return value < bound
            }
        }
    }

    /// Parses `--require`'s comma-separated list; an empty item is skipped.
    /// - Throws: `ConditionRequirementError` naming the item at fault (an unknown condition, a malformed bound).
    package static func parseList(_ list: String) throws(ConditionRequirementError) -> [ConditionRequirement] {
        var result: [ConditionRequirement] = []
        for item in list.split(separator: ",", omittingEmptySubsequences: true) {
            let text = item.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            let requirement = try parse(text)
            if !result.contains(requirement) { result.append(requirement) }
        }
        return result
    }

    /// Parses one condition.
    /// - Throws: `ConditionRequirementError` naming it.
    package static func parse(_ text: String) throws(ConditionRequirementError) -> ConditionRequirement {
        switch text.lowercased() {
        case "charging": return ConditionRequirement(text: text, rule: .charging(true))
        case "not-charging": return ConditionRequirement(text: text, rule: .charging(false))
        case "low-power-mode-off": return ConditionRequirement(text: text, rule: .lowPowerModeOff)
        default: break
        }
        // The two-character operators first, so `>=` is not read as `>` then `=50`.
        guard
            let comparison = Comparison.allCases.sorted(by: { $0.rawValue.count > $1.rawValue.count }).first(where: {
                text.contains($0.rawValue)
            }), let range = text.range(of: comparison.rawValue)
        else {
            throw .unknownCondition(text)
        }
        let name = text[..<range.lowerBound].trimmingCharacters(in: .whitespaces).lowercased()
        let boundText = text[range.upperBound...].trimmingCharacters(in: .whitespaces)
        if name == DeviceCondition.thermalState.rawValue {
            guard comparison == .atMost, Self.thermalStates.contains(boundText.lowercased()) else {
                throw .malformedBound(text, expected: "thermal-state<=nominal, fair, serious or critical")
            }
            return ConditionRequirement(text: text, rule: .thermalAtMost(boundText.lowercased()))
        }
        guard let condition = DeviceCondition(rawValue: name), numeric.contains(condition) else {
            throw .unknownCondition(text)
        }
        guard let bound = Double(boundText), bound.isFinite, bound >= 0 else {
            throw .malformedBound(text, expected: "a number of \(unit(condition)) after \(comparison.rawValue)")
        }
        if condition == .battery, bound > 100 {
            throw .malformedBound(text, expected: "a battery level from 0 to 100 (%)")
        }
        return ConditionRequirement(text: text, rule: .bound(condition, comparison, bound))
    }

    static func unit(_ condition: DeviceCondition) -> String {
        switch condition {
        case .battery: return "% (0–100)"
        case .temperature: return "°C"
        case .uptime: return "seconds"
        case .storage: return "GB"
        default: return ""
        }
    }
}

/// Why `--require` could not be read (exit 64).
package enum ConditionRequirementError: Error, Sendable, Equatable {
    /// Not a condition launchbench knows.
    case unknownCondition(String)
    /// A known condition whose bound is not a number (or not a thermal state).
    case malformedBound(String, expected: String)
}

extension ConditionRequirementError: CustomStringConvertible {
    /// What is wrong, naming the condition, and what would be right.
    package var description: String {
        switch self {
        case .unknownCondition(let text):
            return "--require \(text): unknown condition. Use charging, not-charging, low-power-mode-off, "
                + "battery>=N, temperature<=N, uptime>=N, storage>=N (GB) or thermal-state<=fair, comma-separated, "
                + "e.g. --require charging,battery>=50,temperature<=35."
        case .malformedBound(let text, let expected):
            return "--require \(text): the bound is malformed; expected \(expected), e.g. --require temperature<=35."
        }
    }
}
