import Foundation
import LaunchBench

/// Where each device condition comes from, over libimobiledevice 1.3.0. What a real phone answers is marked
/// unverified in Documentation/RealPhoneStatus.md until someone runs `launchbench run` on one.
enum ConditionSources {
    /// Lockdown's battery domain (`ideviceinfo -q com.apple.mobile.battery`): `BatteryCurrentCapacity` (%),
    /// `BatteryIsCharging`.
    static let batteryDomain = "com.apple.mobile.battery"
    /// Lockdown's disk usage domain (`ideviceinfo -q com.apple.disk_usage`): `AmountDataAvailable` (bytes free on
    /// the data partition).
    static let diskUsageDomain = "com.apple.disk_usage"
    /// The IORegistry class pymobiledevice3 asks diagnostics_relay for (`DiagnosticsService.get_battery`,
    /// pymobiledevice3/services/diagnostics.py), whose `Temperature` is in 1/100 °C.
    static let powerSourceClass = "IOPMPowerSource"
    /// The entry name `idevicediagnostics ioregentry AppleSmartBattery` asks for, tried when the class gives no
    /// temperature.
    static let smartBatteryName = "AppleSmartBattery"
    /// What no service libimobiledevice reaches gives (libimobiledevice issue #1342 asks for the uptime and has
    /// no answer; pymobiledevice3 issue #535: "no direct way").
    static let notOffered = "not offered by any service libimobiledevice reaches"
}

extension DeviceSession {
    /// The device's conditions: battery and free storage from lockdown (the kept session), the battery
    /// temperature from diagnostics_relay's IORegistry. A part that fails is named in `unavailable` with its
    /// error; only a lost device throws.
    func conditions() throws -> DeviceConditions {
        var conditions = DeviceConditions()
        var unavailable: [DeviceCondition: String] = [
            .uptime: ConditionSources.notOffered, .lowPowerMode: ConditionSources.notOffered,
            .thermalState: ConditionSources.notOffered,
        ]
        do {
            let (level, charging, free) = try withLockdown { _, lockdown in
                (
                    try lockdown.value(forKey: "BatteryCurrentCapacity", domain: ConditionSources.batteryDomain),
                    try lockdown.value(forKey: "BatteryIsCharging", domain: ConditionSources.batteryDomain),
                    try lockdown.value(forKey: "AmountDataAvailable", domain: ConditionSources.diskUsageDomain)
                )
            }
            conditions.batteryPercent = level.flatMap(Self.number)
            conditions.charging = charging?.boolValue
            conditions.freeStorageBytes = free.flatMap(Self.number)
        } catch let error as DeviceError where Self.mayBeLoss(error) && deviceLeft() {
            throw error
        } catch {
            let reason = "lockdown: \(error.localizedDescription)"
            for condition in [DeviceCondition.battery, .charging, .storage] { unavailable[condition] = reason }
        }
        do {
            conditions.temperatureC = try batteryTemperature()
        } catch let error as DeviceError where Self.mayBeLoss(error) && deviceLeft() {
            throw error
        } catch {
            unavailable[.temperature] = "diagnostics_relay: \(error.localizedDescription)"
        }
        let missing: [(DeviceCondition, Bool, String)] = [
            (
                .battery, conditions.batteryPercent == nil,
                "lockdown's \(ConditionSources.batteryDomain) has no BatteryCurrentCapacity"
            ),
            (
                .charging, conditions.charging == nil,
                "lockdown's \(ConditionSources.batteryDomain) has no BatteryIsCharging"
            ),
            (
                .storage, conditions.freeStorageBytes == nil,
                "lockdown's \(ConditionSources.diskUsageDomain) has no AmountDataAvailable"
            ),
            (.temperature, conditions.temperatureC == nil, "the IORegistry power source has no Temperature"),
        ]
        for (condition, isMissing, reason) in missing where isMissing && unavailable[condition] == nil {
            unavailable[condition] = reason
        }
        conditions.unavailable = Dictionary(uniqueKeysWithValues: unavailable.map { ($0.key.rawValue, $0.value) })
        return conditions
    }

    /// The battery's temperature in °C from the IORegistry power source, `nil` when the device gives none.
    private func batteryTemperature() throws -> Double? {
        let (device, service) = try withLockdown { device, lockdown in
            (device, try DiagnosticsRelayClient.startService(on: lockdown))
        }
        let relay = try DiagnosticsRelayClient(device: device, service: service)
        defer { try? relay.goodbye() }
        for (name, className) in [(nil, ConditionSources.powerSourceClass), (ConditionSources.smartBatteryName, nil)] {
            let entry = try relay.ioregistryEntry(name: name, className: className)
            if let raw = entry?["IORegistry"]?["Temperature"].flatMap(Self.number) { return raw / 100 }
        }
        return nil
    }

    /// A plist number as a `Double` (libplist keeps integers unsigned: a negative one comes back as its bit pattern).
    static func number(_ value: PropertyListValue) -> Double? {
        switch value {
        case .integer(let raw): return Double(Int64(bitPattern: raw))
        case .real(let number): return number.isFinite ? number : nil
        default: return nil
        }
    }
}
