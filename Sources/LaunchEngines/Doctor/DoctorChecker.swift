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

    /// The steps that go through the tunnel on iOS 17+: when the tunnel step fails, theirs is the same fault.
    static let throughTheTunnel: Set<DoctorStep> = [
        .debugproxy, .dtservicehub, .kperf, .firstMessage, .machTimeInfo, .launch, .dyldEvents, .delivery,
    ]

    /// Adds `row`; one that does not hold is checked against the attached devices first. Its fix names the
    /// pymobiledevice3 this run found (a bare `pymobiledevice3` may not be on PATH: an installed launchbench
    /// finds a clone's venv), and a step that fails behind a failed tunnel points at the tunnel's fix, which
    /// leads the Fixes list, instead of a fix of its own that would not help (issue 43 item 7).
    mutating func add(_ row: DoctorRow) async {
        guard !lost, steps.contains(row.step), rows.rows.allSatisfy({ $0.step != row.step }) else { return }
        var row = row
        if row.state == .fails, Self.throughTheTunnel.contains(row.step),
            rows.rows.contains(where: { $0.step == .tunnel && $0.state == .fails })
        {
            row.fix =
                "It goes through the tunnel, which fails above: apply the \(DoctorStep.tunnel.rawValue) fix first."
        }
        row.fix = row.fix.map(namingFoundProgram)
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

    /// `fix` with each `pymobiledevice3 …` command naming the program found, quoted for a shell, and this phone.
    func namingFoundProgram(_ fix: String) -> String {
        let fix = fix.replacingOccurrences(of: "--udid UDID`", with: "--udid \(device.udid)`")
        guard let program = doctor.setup.pymobiledevice3?.executable, program != "pymobiledevice3" else { return fix }
        return fix.replacingOccurrences(of: "`pymobiledevice3 ", with: "`\(Self.shellQuoted(program)) ")
            .replacingOccurrences(of: "`sudo pymobiledevice3 ", with: "`sudo \(Self.shellQuoted(program)) ")
    }

    static func shellQuoted(_ text: String) -> String {
        let plain = text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+@%:,".contains($0) }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// iOS 17.4+: lockdown starts CoreDeviceProxy, the service pymobiledevice3's userspace tunnel opens (the
    /// tunnel itself is made by the launch's engine); 17.0–17.3 go through the root tunneld instead.
    private func tunnel() async -> DoctorRow {
        guard let version = device.version, version >= OSVersion(17, 4) else { return await tunneld() }
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

    /// iOS 17.0–17.3.1 have no CoreDeviceProxy: every connection goes through the root `remote tunneld`
    /// (`--tunneld`, else 127.0.0.1:49151), which must answer and serve a tunnel to this phone.
    private func tunneld() async -> DoctorRow {
        let address = Pymobiledevice3Setup.tunneldAddress(doctor.setup.pymobiledevice3?.tunneld)
        let start =
            "Start the root tunnel daemon in another terminal and leave it running: `sudo pymobiledevice3 remote "
            + "tunneld` (iOS 17.0–17.3.1 have no CoreDeviceProxy; it needs root for its TUN interface), or point "
            + "--tunneld PORT (or HOST:PORT) at the one that runs; then run doctor again."
        do {
            guard let count = try await TunneldListing.tunnels(of: device.udid, at: address) else {
                return .fails(
                    .tunnel, "the tunneld at \(address) serves no tunnel to this phone",
                    fix: "Unlock the phone and tap Trust if asked: tunneld connects to it within seconds. If it does "
                        + "not, restart tunneld (`sudo pymobiledevice3 remote tunneld`), then run doctor again.")
            }
            return .holds(
                .tunnel, "the tunneld at \(address) serves \(count) tunnel\(count == 1 ? "" : "s") to this phone")
        } catch let error as TunneldListing.Unreachable {
            return .fails(.tunnel, "no tunneld answers at \(address): \(error.reason)", fix: start)
        } catch {
            return .fails(.tunnel, "no tunneld answers at \(address): \(error)", fix: start)
        }
    }
}
