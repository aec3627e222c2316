import ArgumentParser
import DeviceEmulator
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice

/// `launchbench doctor [--device UDID] [--app APP] [--capture DIR]`: checks one phone's chain step by step and
/// prints a row per step; exit 0 only when every step a run needs holds.
struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check one iPhone's whole chain, step by step, with a launch of an app (about a minute).",
        discussion: """
            One row per step: usbmuxd reachable, paired and trusted, Developer Mode, the Developer Disk Image, the \
            lockdown services a run starts; on iOS 17+ the tunnel (CoreDeviceProxy; on 17.0-17.3 the root tunneld, \
            which must answer) and the RSD services (debugproxy, \
            dtservicehub); where kdebug is the pre-main source, kperf free, the session's first message and \
            machTimeInfo; then a launch of the app (the sample app by default: it is reinstalled, then launched \
            cold) through the engine and launcher `run` would use, and for kdebug: dyld's events of that launch, \
            UIKit's first frame, BUILD_CLOSURE after the install, event delivery (volume and lag). Each step holds, \
            fails (with the fix; the Fixes list leads with the first failing step's) or is unknown. Exit status 0 \
            only when every step a run needs holds, 1 otherwise, \
            64 for an unknown --device or --app. --capture DIR writes what a bug report needs: the launch's raw \
            kdebug, its log and the engines' logs, the phone's model and iOS; no pair record, keys or host IDs.
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The phone to check (default: the only one attached).", valueName: "udid"))
    var device: String?

    @Option(
        help: ArgumentHelp(
            "The app to launch: an .app folder or an .ipa (default: launchbench's sample app).", valueName: "app"),
        completion: .file())
    var app: String?

    @Option(
        help: ArgumentHelp(
            "Write what a bug report needs into this new (or empty) folder, made private (0700); nothing private "
                + "is copied.",
            valueName: "dir"),
        completion: .directory)
    var capture: String?

    @OptionGroup(title: "Launch engine") var engines: EngineOptions

    func validate() throws {
        if let app, !FileManager.default.fileExists(atPath: app) {
            throw ValidationError("--app \(app): no such file or folder. Give an .app folder or an .ipa.")
        }
    }

    func run() async throws {
        // The capture folder is checked (and made) before the first step, not after a minute of checks.
        var createdCapture = false
        if let capture {
            do {
                createdCapture = try DoctorCapture.prepare(URL(fileURLWithPath: capture))
            } catch let error as LaunchBenchError {
                if case .refusedPath = error { throw CommandFailure(.usage, error.localizedDescription) }
                throw error
            }
        }
        var captured = false
        defer { if createdCapture && !captured { _ = rmdir(capture ?? "") } }
        let bundle: AppBundle
        let sample: DemoApp?
        if let app {
            do {
                bundle = try AppBundle(contentsOf: URL(fileURLWithPath: app))
            } catch {
                throw CommandFailure(.usage, "--app \(app): \(error.localizedDescription)")
            }
            sample = nil
        } else {
            sample = try DemoApp.write()
            bundle = try AppBundle(contentsOf: sample!.url)
        }
        defer { sample?.cleanUp() }
        let usbmuxd = connection.apply()
        let folder = try PrivateFolder.run().appendingPathComponent("doctor-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var doctor = DeviceDoctor(probe: MobileDeviceDriver(), setup: engines.setup(usbmuxd: usbmuxd), app: bundle)
        doctor.premain = engines.premainSelection
        doctor.launcher = engines.launcherChoice
        doctor.onRow = { row in Terminal.note("\(row.step.rawValue): \(row.state.rawValue)") }
        let outcome: DoctorOutcome
        do {
            outcome = try await doctor.check(udid: device, folder: folder)
        } catch let error as LaunchBenchError {
            if case .deviceNotAttached = error { throw CommandFailure(.usage, error.localizedDescription) }
            throw error
        } catch let error as DoctorError {
            throw CommandFailure(.usage, error.localizedDescription)
        }
        Terminal.output(outcome.report.render())
        if let capture {
            let target = URL(fileURLWithPath: capture)
            let files = try DoctorCapture.write(outcome, to: target)
            captured = true
            Terminal.output(
                "\nCaptured \(files.count) files in \(target.path) (no pair record, keys or host IDs).\n")
        }
        if !outcome.report.ready { throw ExitCode(.failure) }
    }
}
