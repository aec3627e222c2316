import Foundation
import LaunchBench

/// The emulated phone's battery, charging and battery temperature, as lockdown's battery domain and
/// diagnostics_relay's IORegistry serve them, with a fault that makes the phone hot.
///
/// The hot phone is a model, not a measurement: after `heat(to:…)` the battery temperature falls from the
/// given value toward `ambientC` by Newton's law of cooling, `T(t) = ambient + (T₀ − ambient)·2^(−t/halfLife)`,
/// over emulated time (`t` real seconds divided by the lab's time scale, plus what ``pass(emulatedSeconds:)``
/// adds; a test that must not depend on the machine's speed heats without a time scale and moves the clock
/// itself), and each launch's nominal figures are
/// multiplied by `1 + 0.03·max(0, T − 35)` (3 % per °C above 35 °C), standing in for the CPU throttling iOS
/// applies under thermal pressure. So a hot phone launches slower and speeds up as it cools, which is what
/// `run --require temperature<=35` is for. The rate and the 35 °C knee are chosen, not measured.
package final class EmulatedConditions: Sendable {
    private struct Heat {
        var startC: Double
        var ambientC: Double
        var halfLifeSeconds: Double
        var since: Date
        /// Real seconds per emulated second; `nil`: only ``EmulatedConditions/pass(emulatedSeconds:)`` moves time.
        var timeScale: Double?
        var passedSeconds = 0.0

        /// Emulated seconds since the heat.
        var elapsed: Double {
            passedSeconds + (timeScale.map { max(0, Date().timeIntervalSince(since)) / $0 } ?? 0)
        }
    }

    private struct State {
        var batteryPercent = 100
        var charging = false
        var externalConnected = true
        var restingC = 30.0
        var heat: Heat?
        var freeBytes: Int = 31_000_000_000
        var brokenBatteryPercent: Double?
        var brokenTemperatureC: Double?
    }

    private let state = Locked(State())

    package init() {}

    /// Where a launch starts to slow down, °C.
    package static let throttleKneeC = 35.0
    /// The slow-down per °C above the knee.
    package static let slowdownPerDegree = 0.03

    /// Battery level, % (`BatteryCurrentCapacity`, `CurrentCapacity`). Default 100.
    package var batteryPercent: Int {
        get { state.withLock { $0.batteryPercent } }
        set { state.withLock { $0.batteryPercent = min(100, max(0, newValue)) } }
    }

    /// A fault, not a phone's behaviour: a broken or hostile phone whose lockdown says this `BatteryCurrentCapacity`
    /// (a real, e.g. 1e308) whatever the battery holds; `nil` (the default) reports the battery. What launchbench
    /// must bound before it reaches run.json.
    package var brokenBatteryPercent: Double? {
        get { state.withLock { $0.brokenBatteryPercent } }
        set { state.withLock { $0.brokenBatteryPercent = newValue } }
    }

    /// The same fault for the power source's `Temperature` (°C; served in 1/100 °C as a real).
    package var brokenTemperatureC: Double? {
        get { state.withLock { $0.brokenTemperatureC } }
        set { state.withLock { $0.brokenTemperatureC = newValue } }
    }

    /// Whether the battery charges (`BatteryIsCharging`, `IsCharging`). Default false (full, on the cable).
    package var charging: Bool {
        get { state.withLock { $0.charging } }
        set { state.withLock { $0.charging = newValue } }
    }

    /// Free bytes on the data partition (`com.apple.disk_usage` `AmountDataAvailable`).
    package var freeBytes: Int {
        get { state.withLock { $0.freeBytes } }
        set { state.withLock { $0.freeBytes = max(0, newValue) } }
    }

    /// The fault: the phone is at `celsius` now and cools toward `ambientC`, halving the gap every
    /// `halfLifeSeconds` emulated seconds (`timeScale`: the lab's real seconds per emulated second; `nil`: emulated
    /// time passes only by ``pass(emulatedSeconds:)``, so the temperature does not depend on the machine's speed).
    package func heat(to celsius: Double, ambientC: Double = 30, halfLifeSeconds: Double = 60, timeScale: Double? = 1) {
        state.withLock { state in
            state.heat = Heat(
                startC: celsius, ambientC: ambientC, halfLifeSeconds: max(halfLifeSeconds, 0.001), since: Date(),
                timeScale: timeScale)
            state.restingC = ambientC
        }
    }

    /// Lets `seconds` of emulated time pass for the cooling, on top of the real time the time scale turns into
    /// emulated time.
    package func pass(emulatedSeconds seconds: Double) {
        state.withLock { $0.heat?.passedSeconds += max(0, seconds) }
    }

    /// The battery temperature now, °C.
    package var temperatureC: Double {
        state.withLock { state in
            guard let heat = state.heat else { return state.restingC }
            return heat.ambientC + (heat.startC - heat.ambientC) * pow(2, -heat.elapsed / heat.halfLifeSeconds)
        }
    }

    /// The factor a launch starting now takes on its nominal figures (1 at or below the knee).
    package var launchFactor: Double {
        1 + Self.slowdownPerDegree * max(0, temperatureC - Self.throttleKneeC)
    }

    /// The live keys of lockdown's `com.apple.mobile.battery` domain, over the static ones `LockdownValues`
    /// holds, and of `com.apple.disk_usage`. Both domains are in libimobiledevice 1.3.0's `tools/ideviceinfo.c`
    /// domain list; the keys (`BatteryCurrentCapacity` an integer %, `BatteryIsCharging`, `ExternalConnected`,
    /// `FullyCharged`; `AmountDataAvailable`, `TotalDataAvailable` in bytes) are those public tools read from
    /// real phones with `ideviceinfo -q DOMAIN` or `AMDeviceCopyValue` (unverified here: RealPhoneStatus.md).
    func lockdownValues(domain: String?) -> [String: Any]? {
        switch domain {
        case "com.apple.mobile.battery":
            return state.withLock { state in
                [
                    "BatteryCurrentCapacity": state.brokenBatteryPercent.map { $0 as Any } ?? state.batteryPercent,
                    "BatteryIsCharging": state.charging,
                    "ExternalConnected": state.externalConnected, "FullyCharged": state.batteryPercent >= 100,
                ]
            }
        case "com.apple.disk_usage":
            return state.withLock { ["AmountDataAvailable": $0.freeBytes, "TotalDataAvailable": $0.freeBytes] }
        default:
            return nil
        }
    }

    /// The power source's IORegistry properties, as pymobiledevice3 reads them (`diagnostics battery monitor`
    /// picks `InstantAmperage`, `Temperature` in 1/100 °C, `Voltage`, `IsCharging`, `CurrentCapacity`:
    /// pymobiledevice3 cli/diagnostics/battery.py; its test tests/cli/test_battery_monitor.py has the shape
    /// with `Temperature` 3010). On iPhone `CurrentCapacity` and `MaxCapacity` are percentages (unverified).
    var powerSourceEntry: [String: Any] {
        let celsius = temperatureC
        return state.withLock { state in
            [
                "BatteryInstalled": true, "CurrentCapacity": state.batteryPercent, "MaxCapacity": 100,
                "IsCharging": state.charging, "ExternalConnected": state.externalConnected,
                "ExternalChargeCapable": true, "FullyCharged": state.batteryPercent >= 100,
                "Temperature": state.brokenTemperatureC.map { $0 * 100 as Any } ?? Int((celsius * 100).rounded()),
                "Voltage": 4123,
                "InstantAmperage": state.charging ? 512 : -211, "CycleCount": 127,
            ]
        }
    }
}
