import ArgumentParser
import DeviceEmulator
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice

/// `launchbench demo`: the whole method on an emulated lab, no iPhone needed.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmark the sample app on an emulated lab of iPhones (no device needed).",
        discussion: """
            Starts emulated iPhones on a private usbmuxd socket (iPhone 5 on iOS 10.3.4, iPhone 5s on 12.5.7, \
            iPhone 11 on 14.8, iPhone 13 on 16.7; with pymobiledevice3 installed, as Scripts/bootstrap does, \
            also iPhone 15 on 17.5, iPhone 16 on 18.6, iPhone 15 Pro on 26.1 and iPhone 17 on 27.1, which \
            behaves as 26 does: its facts are assumed from iOS 26, and the summary says so), then runs \
            `launchbench run` \
            on them with Fixtures/SampleApp/Sample.app: \
            reinstall, cold launch, warm launch, ten times per device, through the real libimobiledevice, and \
            through pymobiledevice3's userspace tunnel (CoreDeviceProxy) for iOS 17+. The iPhone 11 gets \
            DYLD_INSERT_LIBRARIES (as Xcode's Main Thread Checker sets it), so that dyld takes its dyld2 path \
            and prints its statistics (kdebug times none of that path's phases, and the cross-check says so); \
            on iOS 16+ the pre-main phases and the first frame come from dyld's and UIKit's kdebug events \
            (through pymobiledevice3; without it, the app's markers only). The iPhone 16's app sends an \
            Initial Frame Rendering END before UIKit's BEGIN, as some apps do on real phones: its first frame \
            is the END after the BEGIN, and the stray is counted. The emulated \
            time runs \(Int(1 / DemoLab.timeScale))x faster; printed times are realistic. The sample app is \
            written to a temp folder.
            """
    )

    @OptionGroup var results: OutputOptions

    @Option(help: "Iterations per device.")
    var iterations: Int = 10

    @Option(
        help: ArgumentHelp(
            "Seed of the emulated launches' noise (default: a new one each run, printed, so a run can be repeated).",
            valueName: "n"))
    var seed: UInt64?

    @Option(
        help: ArgumentHelp(
            "Measure the sample app as this build (CFBundleVersion). From build 35 on it embeds one more framework with a slow initializer, from build 36 on its networking_start_reachability initializer takes 18 ms more: compare a default demo with a --build 35 one, that with a --build 36 one.",
            valueName: "n"))
    var build: String?

    @Option(
        help: ArgumentHelp(
            "How the phones start the app: auto, processcontrol or debugserver (as run's --launcher).",
            discussion: """
                auto: process control, with no debugger attached, on the phones with a kdebug session (iOS 14.8+ \
                here, with pymobiledevice3: on 14.8 the session checks dyld's printed statistics, which come back in \
                process control's output); debugserver on the others. Each phone's launcher is named under it in \
                the summary.
                """,
            valueName: "launcher"))
    var launcher: String = "auto"

    func validate() throws {
        guard (1...1_000).contains(iterations) else {
            throw ValidationError(
                "--iterations \(iterations) is out of range. Use 1 to 1000 (the demo's default is 10).")
        }
        if let build, build.isEmpty || !build.allSatisfy({ $0.isNumber || $0 == "." }) {
            throw ValidationError("--build '\(build)' is not a build number. Use digits and dots, e.g. --build 35.")
        }
        guard LauncherChoice(rawValue: launcher) != nil else {
            throw ValidationError(
                "--launcher \(launcher) is not a launcher. Use one of: "
                    + LauncherChoice.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
    }

    func run() async throws {
        let sample = try DemoApp.write(build: build)
        defer { sample.cleanUp() }
        let app = try AppBundle(contentsOf: sample.url)
        let lab = try await DemoLab.start(seed: seed ?? UInt64.random(in: 1...999_999))
        let code: ExitCode
        do {
            for line in lab.description.split(separator: "\n", omittingEmptySubsequences: false) {
                Terminal.note(String(line))
            }
            var plan = RunPlan(
                app: app, iterations: iterations, coldMode: .reinstall, warmLaunches: 1,
                environment: [DemoLab.overrideVariable, DemoLab.printLibraries], timeout: .seconds(30),
                grace: .milliseconds(200))
            plan.launcher = LauncherChoice(rawValue: launcher) ?? .auto
            plan.initializerSymbols = Run.initializerSymbols(dsym: nil)
            code = try await RunExecution.execute(
                plan, engines: lab.engines, usbmuxd: USBMuxAddress(lab.lab.usbmuxdSocketAddress),
                output: results.output, overwrite: results.overwrite)
        } catch {
            await lab.stop()
            throw error
        }
        await lab.stop()
        if code != .success { throw code }
    }
}

/// The demo's emulated lab on a private socket, with this process pointed at it.
struct DemoLab {
    /// Real seconds per emulated second.
    static let timeScale = 0.2

    /// Xcode's Main Thread Checker injection: an override variable, so dyld3 (iOS 13–14) prints statistics.
    static let overrideVariable = EnvironmentVariable(
        name: "DYLD_INSERT_LIBRARIES", value: "/Developer/usr/lib/libMainThreadChecker.dylib")

    /// dyld lists the images it loads, so the reports can name the app's embedded dylibs.
    static let printLibraries = EnvironmentVariable(name: "DYLD_PRINT_LIBRARIES", value: "1")

    static let devices: [EmulatedDeviceSpec] = [
        .numbered(1, productType: "iPhone5,2", osVersion: "10.3.4"),
        .numbered(2, productType: "iPhone6,1", osVersion: "12.5.7"),
        .numbered(3, productType: "iPhone12,1", osVersion: "14.8"),
        .numbered(4, productType: "iPhone14,5", osVersion: "16.7"),
    ]

    /// The phones people carry, measured through pymobiledevice3's userspace tunnel when it is installed.
    static let modernDevices: [EmulatedDeviceSpec] = [
        .numbered(5, productType: "iPhone15,4", osVersion: "17.5"),
        .numbered(6, productType: "iPhone17,3", osVersion: "18.6"),
        .numbered(7, productType: "iPhone16,1", osVersion: "26.1"),
        // iOS 27's dyld source is not public: the emulated 27.1 behaves as 26 (OSVersion.isNewerThanKnown).
        .numbered(8, productType: "iPhone18,3", osVersion: "27.1"),
    ]

    /// The phone whose app sends an Initial Frame Rendering END before UIKit's BEGIN, as some apps do on real
    /// phones (py-ios-device PR #127): launchbench takes the END after the BEGIN, and counts the stray.
    static let strayFrameEndPhone = modernDevices[1]

    let lab: EmulatedLab
    let seed: UInt64
    let folder: String
    /// The pymobiledevice3 that measures the iOS 17+ phones; `nil` leaves them out (with a line saying how).
    let pymobiledevice3: String?

    /// libimobiledevice up to iOS 16, pymobiledevice3 for the rest and for dyld's kdebug events on the iOS 16+
    /// phones (never devicectl: it cannot reach an emulated phone), all on the lab's usbmuxd.
    var engines: EngineSetup {
        EngineSetup(
            selection: .auto, host: EngineHost(isMacOS: false, pymobiledevice3: pymobiledevice3),
            usbmuxd: USBMuxAddress(lab.usbmuxdSocketAddress), pageFaults: true)
    }

    /// Starts the lab in a fresh /tmp folder and points libusbmuxd (this process only) at it.
    static func start(seed: UInt64) async throws -> DemoLab {
        var template = Array("/tmp/launchbench-demo-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CommandFailure(
                .failure,
                "Cannot create a folder in /tmp for the demo's socket (\(String(cString: strerror(errno)))). Check that "
                    + "/tmp exists, is writable and has free space.")
        }
        let folder = String(cString: made)
        let pymobiledevice3 = Pymobiledevice3Locator.find()
        do {
            let socket = folder + "/usbmuxd.sock"
            let lab = try await EmulatedLab.start(
                socketPath: socket, devices: devices + (pymobiledevice3 == nil ? [] : modernDevices),
                services: BuiltInServices.all(seed: seed), timeScale: timeScale)
            USBMuxAddress.use(USBMuxAddress(lab.usbmuxdSocketAddress))
            for device in lab.devices where device.udid == strayFrameEndPhone.udid {
                device.services.uikitFrames = UIKitFrameEvents(strayEnds: 1)
            }
            return DemoLab(
                lab: lab, seed: seed, folder: folder, pymobiledevice3: pymobiledevice3)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    var description: String {
        var table = TextTable(headers: ["UDID", "MODEL", "IOS"])
        for device in lab.devices {
            table.append([device.udid, DeviceModels.marketingName(for: device.spec.productType), device.spec.osVersion])
        }
        return "Emulated lab on \(lab.usbmuxdSocketAddress):\n" + table.render() + "\n"
            + "Emulated time runs \(Int(1 / Self.timeScale))x faster: dyld and the app print realistic times, the "
            + "harness's wall time (wall_ms) is real time. Noise seed \(seed) (repeat with --seed \(seed))."
            + (pymobiledevice3 == nil
                ? "\nAn iPhone 15 (iOS 17.5), an iPhone 16 (iOS 18.6), an iPhone 15 Pro (iOS 26.1) and an iPhone 17 "
                    + "(iOS 27.1), measured "
                    + "through pymobiledevice3's userspace tunnel, join the demo once pymobiledevice3 is installed: "
                    + EngineChoice.pymobiledevice3Install + "."
                : "\nThe iOS 17+ phones are measured through pymobiledevice3's userspace tunnel (\(pymobiledevice3!)).")
    }

    func stop() async {
        await lab.stop()  // after the run, which stopped its pymobiledevice3 sidecars while the phones were there
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// The app the demo measures: `SampleApp` (the bytes of `Fixtures/SampleApp/Sample.app`, of `--build`'s
/// build when given) written to a temp folder, so an installed launchbench measures the same app as a checkout.
struct DemoApp {
    let url: URL
    /// The temp folder to remove afterwards.
    let temporaryFolder: URL?

    /// Writes the sample app into a new folder in the run's private one (`PrivateFolder.run()`: on a shared
    /// host no other user can swap the app launchbench installs).
    /// - Parameter build: its `CFBundleVersion`; nil for the fixture's.
    static func write(build: String? = nil) throws -> DemoApp {
        let folder = try PrivateFolder.run().appendingPathComponent("demo-app-\(UUID().uuidString.prefix(8))")
        do {
            let app = try SampleApp.write(into: folder, build: build ?? SampleApp.fixtureBuild)
            return DemoApp(url: app, temporaryFolder: folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    func cleanUp() {
        if let temporaryFolder { try? FileManager.default.removeItem(at: temporaryFolder) }
    }
}
