import Foundation
import LaunchBench

/// `launchbench doctor`: checks one phone's chain step by step, as a run would use it, and says per step
/// whether it holds, fails (with the fix) or is unknown. The launch is a one-iteration run (a reinstall, then
/// a cold launch) through the same runner, engine and launcher `run` would use, its kdebug session watched by
/// `ObservedKdebugTracer`; the kdebug rows read what that run wrote.
package struct DeviceDoctor: Sendable {
    /// The lockdown driver (and what doctor asks of it beyond a run).
    package var probe: any DoctorProbing
    /// `--engine` on this host, as `run` composes it.
    package var setup: EngineSetup
    /// The app to launch.
    package var app: AppBundle
    /// A launch's `--timeout`.
    package var launchTimeout: Duration = .seconds(30)
    /// `--premain` and `--launcher`, as `run` takes them.
    package var premain: PremainSelection = .auto
    package var launcher: LauncherChoice = .auto
    /// Called with each row as it is known (the command prints them as they come).
    package var onRow: @Sendable (DoctorRow) -> Void = { _ in }

    /// A doctor over `probe` and `setup`'s engines, launching `app`.
    package init(probe: any DoctorProbing, setup: EngineSetup, app: AppBundle) {
        self.probe = probe
        self.setup = setup
        self.app = app
    }

    /// Checks `udid` (the only attached device when `nil`); the launch's results folder is `folder` (created).
    /// - Throws: `LaunchBenchError.deviceNotAttached` (listing the attached ones) when `udid` is not attached,
    ///   `.noDevicesAttached`, or `DoctorError.severalDevices` when no UDID was given and several are attached;
    ///   `.cannotWrite` when `folder` cannot be created.
    package func check(udid: String?, folder: URL) async throws -> DoctorOutcome {
        var rows = RowLog(onRow: onRow)
        let listing: DeviceListing
        do {
            listing = try await probe.listDevices(reading: udid.map { [$0] })
        } catch {
            rows.add(.fails(.usbmuxd, Self.describe(error), fix: Self.usbmuxdFix))
            rows.unknown(Array(DoctorStep.allCases.dropFirst()), "not checked: usbmuxd cannot be reached")
            return DoctorOutcome(report: DoctorReport(device: nil, rows: rows.rows))
        }
        let attached = listing.attached
        let chosen = try Self.choose(udid, attached: attached)
        rows.add(.holds(.usbmuxd, attached.count == 1 ? "1 device attached" : "\(attached.count) devices attached"))
        if let unreadable = listing.unreadable.first(where: { Self.same($0.udid, chosen) }) {
            rows.add(.fails(.pairing, "lockdown's values cannot be read: \(unreadable.reason)", fix: Self.pairingFix))
            rows.unknown(
                Self.steps(for: nil, kdebug: true).filter { $0 != .usbmuxd && $0 != .pairing },
                "not checked: the device cannot be read")
            return DoctorOutcome(report: DoctorReport(device: nil, rows: rows.rows))
        }
        guard let device = listing.devices.first(where: { Self.same($0.udid, chosen) }) else {
            throw LaunchBenchError.deviceNotAttached(udid: chosen, attached: attached)
        }
        var plan = RunPlan(
            app: app, deviceUDIDs: [device.udid], iterations: 1, coldMode: .reinstall, warmLaunches: 0,
            timeout: launchTimeout, grace: .milliseconds(500), premain: premain)
        plan.launcher = launcher
        let kdebug = plan.premainSource(for: device) == .kdebug || plan.crossChecksPremain(on: device)
        let steps = Self.steps(for: device.version, kdebug: kdebug)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw LaunchBenchError.cannotWrite(path: folder.path, reason: error.localizedDescription)
        }
        var checker = DoctorChecker(doctor: self, device: device, steps: steps, rows: rows)
        await checker.run(plan: plan, folder: folder)
        return checker.outcome
    }

    /// The steps checked on a phone of `version` (every one when unknown), in order; the kdebug steps only
    /// when the run reads kdebug there.
    static func steps(for version: OSVersion?, kdebug: Bool) -> [DoctorStep] {
        let kdebugSteps: Set<DoctorStep> = [
            .kperf, .firstMessage, .machTimeInfo, .dyldEvents, .firstFrame, .buildClosure, .delivery,
        ]
        let tunnelSteps: Set<DoctorStep> = [.tunnel, .debugproxy, .dtservicehub]
        let modern = version.map { $0.major >= 17 } ?? true
        let newer = version?.isNewerThanKnown ?? false
        return DoctorStep.allCases.filter {
            (kdebug || !kdebugSteps.contains($0)) && (modern || !tunnelSteps.contains($0))
                && (newer || !DoctorStep.newerIOSSteps.contains($0))
        }
    }

    /// The device to check: `udid`, else the only one attached.
    static func choose(_ udid: String?, attached: [String]) throws -> String {
        if let udid { return udid }
        guard let only = attached.first else { throw LaunchBenchError.noDevicesAttached }
        guard attached.count == 1 else { throw DoctorError.severalDevices(attached) }
        return only
    }

    static func same(_ a: String, _ b: String) -> Bool { a.caseInsensitiveCompare(b) == .orderedSame }

    static func describe(_ error: any Error) -> String {
        (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
    }

    static let usbmuxdFix =
        "Start usbmuxd (Linux: `sudo systemctl start usbmuxd`, or plug the phone in; macOS runs it always), or "
        + "point --usbmuxd / USBMUXD_SOCKET_ADDRESS at the one serving the phone."
    static let pairingFix =
        "Unlock the phone and tap Trust when it asks (or pair with `idevicepair pair`), then run doctor again."
}

/// Why doctor cannot choose a device (exit 64).
package enum DoctorError: Error, LocalizedError, Sendable, Equatable {
    /// No `--device`, and more than one phone is attached.
    case severalDevices([String])

    package var errorDescription: String? {
        switch self {
        case .severalDevices(let attached):
            return "\(attached.count) devices are attached (\(attached.joined(separator: ", "))): name the one to "
                + "check with --device UDID."
        }
    }
}

/// What doctor found: the report, and the launch's results folder and sample for `--capture`.
package struct DoctorOutcome: Sendable {
    package var report: DoctorReport
    /// The one-launch run's results folder (`nil` when no launch was tried).
    package var runFolder: URL?
    /// The launch's sample.
    package var sample: Sample?
}

/// The rows so far, each told to `onRow` as it is added.
struct RowLog {
    let onRow: @Sendable (DoctorRow) -> Void
    private(set) var rows: [DoctorRow] = []

    init(onRow: @escaping @Sendable (DoctorRow) -> Void) {
        self.onRow = onRow
    }

    mutating func add(_ row: DoctorRow) {
        rows.append(row)
        onRow(row)
    }

    /// `steps` not checked, for `reason`.
    mutating func unknown(_ steps: [DoctorStep], _ reason: String) {
        for row in DoctorReport.unchecked(steps, because: reason) { add(row) }
    }
}
