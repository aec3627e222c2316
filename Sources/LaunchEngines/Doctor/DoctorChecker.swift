import Foundation
import LaunchBench

/// One doctor's pass over one phone: the steps in order, each row added as it is known; a step that does not
/// hold on a phone that is no longer attached ends the pass (the rows after it are unknown).
struct DoctorChecker {
    let doctor: DeviceDoctor
    let device: DeviceInfo
    let steps: [DoctorStep]
    var rows: RowLog
    var lost = false
    var runFolder: URL?
    var sample: Sample?

    init(doctor: DeviceDoctor, device: DeviceInfo, steps: [DoctorStep], rows: RowLog) {
        self.doctor = doctor
        self.device = device
        self.steps = steps
        self.rows = rows
    }

    var outcome: DoctorOutcome {
        DoctorOutcome(report: DoctorReport(device: device, rows: rows.rows), runFolder: runFolder, sample: sample)
    }

    static let lostFix = "Reconnect the phone (unlocked, on a cable that stays put), then run doctor again."

    /// Adds `row`; one that does not hold is checked against the attached devices first.
    mutating func add(_ row: DoctorRow) async {
        guard !lost, steps.contains(row.step), rows.rows.allSatisfy({ $0.step != row.step }) else { return }
        if row.state != .holds, await !isAttached() {
            lost = true
            rows.add(
                .fails(
                    row.step, "the device went away during this step (\(row.detail))", fix: Self.lostFix,
                    needed: row.needed))
            let done = Set(rows.rows.map(\.step))
            rows.unknown(steps.filter { !done.contains($0) }, "not checked: the device went away")
            return
        }
        rows.add(row)
    }

    func isAttached() async -> Bool {
        guard let listing = try? await doctor.probe.listDevices(reading: []) else { return false }
        return listing.attached.contains { DeviceDoctor.same($0, device.udid) }
    }

    mutating func run(plan: RunPlan, folder: URL) async {
        await add(pairing())
        let readiness = lost ? nil : await doctor.probe.developerReadiness(of: device)
        if let readiness {
            await add(Self.row(.developerMode, readiness.developerMode, advice: readiness.advice, version: device))
            await add(Self.row(.diskImage, readiness.diskImage, advice: readiness.advice, version: device))
        }
        if !lost { await add(lockdownServices(kdebug: steps.contains(.kperf))) }
        if !lost, steps.contains(.tunnel) { await add(tunnel()) }
        guard !lost else { return }
        await launch(plan: plan, folder: folder)
    }

    private func pairing() async -> DoctorRow {
        do {
            try await doctor.probe.checkPairing(of: device.udid)
            return .holds(.pairing, "a lockdown session starts with this host's pair record")
        } catch {
            return .fails(.pairing, DeviceDoctor.describe(error), fix: DeviceDoctor.pairingFix)
        }
    }

    static func row(
        _ step: DoctorStep, _ state: DeveloperReadiness.State, advice: [String], version device: DeviceInfo
    ) -> DoctorRow {
        let topic = step == .developerMode ? "Developer Mode" : "Developer Disk Image"
        switch state {
        case .ready: return .holds(step, step == .developerMode ? "on" : "mounted")
        case .notNeeded: return .holds(step, "not needed on iOS \(device.osVersion)")
        case .unknown: return .unknown(step, "the phone did not say (locked, or the service is not offered)")
        case .notReady:
            let fix = advice.first { $0.contains(topic == "Developer Mode" ? "Developer Mode is off" : "Disk Image") }
            return .fails(step, step == .developerMode ? "off" : "not mounted", fix: fix ?? topic)
        }
    }

    /// The lockdown services a run starts before its launches: installd, and on iOS 14–16 the instruments
    /// service that carries kdebug (debugserver is started by the launch itself).
    private func lockdownServices(kdebug: Bool) async -> DoctorRow {
        var names = ["com.apple.mobile.installation_proxy"]
        if kdebug, let version = device.version, version.major < 17 {
            names.append("com.apple.instruments.remoteserver.DVTSecureSocketProxy")
        }
        for name in names {
            do {
                try await doctor.probe.startService(name, on: device.udid)
            } catch {
                return .fails(
                    .lockdownServices, "\(name): \(DeviceDoctor.describe(error))",
                    fix: "Mount the Developer Disk Image and turn on Developer Mode (the rows above), keep the phone "
                        + "unlocked, then run doctor again; `launchbench devices` shows what the phone lacks.")
            }
        }
        return .holds(.lockdownServices, "lockdown starts " + names.joined(separator: ", "))
    }

    /// iOS 17.4+: lockdown starts CoreDeviceProxy, the service pymobiledevice3's userspace tunnel opens (the
    /// tunnel itself is made by the launch's engine); 17.0–17.3 go through the root tunneld instead.
    private func tunnel() async -> DoctorRow {
        guard let version = device.version, version >= OSVersion(17, 4) else {
            return .unknown(
                .tunnel,
                "iOS \(device.osVersion) is reached through the root tunneld (--tunneld), not CoreDeviceProxy: the "
                    + "launch below uses it", needed: false)
        }
        let name = "com.apple.internal.devicecompute.CoreDeviceProxy"
        do {
            try await doctor.probe.startService(name, on: device.udid)
            return .holds(.tunnel, "lockdown starts \(name) (the launch's engine makes the tunnel over it)")
        } catch {
            return .fails(
                .tunnel, DeviceDoctor.describe(error),
                fix: "The phone refused the tunnel service: unlock it, tap Trust if asked, turn on Developer Mode, "
                    + "and check that it runs iOS 17.4 or later.")
        }
    }
}
