import ArgumentParser
import DeviceEmulator
import Dispatch
import Foundation
import LaunchBench

/// `launchbench emulator`: runs an emulated iPhone lab in the foreground until Ctrl-C.
struct Emulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run emulated iPhones that libimobiledevice tools (and launchbench) can talk to.",
        discussion: """
            Serves the usbmuxd protocol on a unix socket (and/or TCP) with emulated devices behind it. \
            Prints the USBMUXD_SOCKET_ADDRESS line to use from another shell, e.g.:
              export USBMUXD_SOCKET_ADDRESS=UNIX:/tmp/launchbench-emu-ab12cd/usbmuxd.sock
              idevice_id -l; ideviceinfo -u UDID; launchbench devices
            Without --model, the devices rotate through models that really ran the chosen iOS version \
            (on 14.x: iPhone 11, iPhone 12, iPhone XR, iPhone X). Stop with Ctrl-C or SIGTERM; the socket \
            file is removed.

            While it runs, lines on stdin drive the lab, each answered on stdout: `detach UDID` (unplug: usbmuxd \
            says Detached and open connections close), `attach UDID`, `reboot UDID [SECONDS]` (detach, then attach \
            after SECONDS emulated seconds, default 5), `list`, `help`. Rehearse an unplugged phone in your pipeline: \
            `launchbench run` records that device's launch as device-lost and goes on with the others. \
            `heat UDID CELSIUS [HALF-LIFE]` makes a phone hot (it cools toward 30 °C, halving the gap every HALF-LIFE \
            emulated seconds, default 60, and launches slow by 3 % per °C above 35 °C: a model), `battery UDID \
            PERCENT` and `charging UDID on|off` set what it reports, to rehearse `run --require`.

            A real phone's launches wander more than the apps' per-phase noise: --launch-noise, --run-offset \
            (drawn once per device start), --drift (slow, within a start) and --outliers (background work) give \
            every device that variation (an app profile's `variation` wins field by field); --seed makes another \
            start draw other offsets. Documentation/NoiseModel.md says where the figures come from.

            iOS 17.4+ devices serve the CoreDeviceProxy tunnel that pymobiledevice3's --userspace path uses \
            (launchbench picks it for them). iOS 17.0–17.3.x devices need a tunneld: --tunneld PORT starts a \
            loopback stand-in for `sudo pymobiledevice3 remote tunneld`; pass the same --tunneld PORT to \
            launchbench.
            """
    )

    @Option(
        help: ArgumentHelp(
            "Unix socket path to listen on (at most 103 bytes; default: a new folder in /tmp).", valueName: "path"))
    var socket: String?

    @Option(
        help: ArgumentHelp(
            "Listen on TCP HOST:PORT as well (or instead, without --socket); port 0 picks a free port.",
            valueName: "host:port"))
    var listen: String?

    @Option(help: ArgumentHelp("Number of emulated devices, 1 to 16.", valueName: "n"))
    var devices: Int = 2

    @Option(help: ArgumentHelp("iOS version the devices report, MAJOR.MINOR[.PATCH].", valueName: "version"))
    var ios: String = "14.8"

    @Option(
        help: ArgumentHelp("ProductType of every device, e.g. iPhone12,1 (default: a mix).", valueName: "product-type"))
    var model: String?

    @Option(help: ArgumentHelp("Real seconds per emulated second (0.1 = ten times faster).", valueName: "x"))
    var timeScale: Double = 1

    @Option(
        help: ArgumentHelp(
            "On stop, write what each device was busy with (installd commands, app processes, real seconds) to this file, one JSON object a line.",
            valueName: "file"))
    var activityLog: String?

    @Option(
        name: .customLong("device-name"),
        help: ArgumentHelp(
            "DeviceName of the next device, in order (repeatable; any text: test how your pipeline shows it).",
            valueName: "name"))
    var deviceNames: [String] = []

    @Flag(help: "Give the devices names that attack CSV and HTML exports (a =HYPERLINK formula, <script> markup).")
    var hostileNames = false

    @Option(
        help: ArgumentHelp(
            "Serve a stand-in for pymobiledevice3's root tunneld on 127.0.0.1:PORT for the iOS 17.0–17.3.x devices (0 picks a free port).",
            valueName: "port"))
    var tunneld: Int?

    @Option(
        help: ArgumentHelp(
            "Seed of the devices' noise, run offsets and faults where an app's profile sets none (default 0).",
            valueName: "n"))
    var seed: UInt64 = 0

    @Option(help: ArgumentHelp("Launch-to-launch noise, the log's standard deviation (0.05 ≈ 5 %).", valueName: "sd"))
    var launchNoise: Double?

    @Option(
        help: ArgumentHelp(
            "Offset of every launch of a device start, drawn once per start (sd of the log, 0.2 ≈ 20 %).",
            valueName: "sd"))
    var runOffset: Double?

    @Option(help: ArgumentHelp("Slow drift within a device start (sd of the log).", valueName: "sd"))
    var drift: Double?

    @Option(help: ArgumentHelp("The drift's correlation length in launches (default 20).", valueName: "n"))
    var driftLaunches: Double?

    @Option(help: ArgumentHelp("Chance per launch of background work that slows it (0…1).", valueName: "p"))
    var outliers: Double?

    @Option(help: ArgumentHelp("Mean extra fraction background work adds (default 0.3).", valueName: "fraction"))
    var outlierSize: Double?

    @Option(
        help: ArgumentHelp(
            "Initial Frame Rendering ENDs each app sends before UIKit's BEGIN, as some apps do on real phones "
                + "(0 to 100; an app profile's uikitFrames wins).", valueName: "n"))
    var strayFrameEnds: Int?

    /// The variation the options ask for, `nil` when none was given.
    var variation: PhoneVariation? {
        let variation = PhoneVariation(
            launch: launchNoise, runOffset: runOffset, drift: drift, driftLaunches: driftLaunches,
            outlierProbability: outliers, outlierSize: outlierSize)
        return variation == PhoneVariation() ? nil : variation
    }

    func validate() throws {
        try OutputPaths.checkFile(activityLog, option: "--activity-log", example: "activity.jsonl")
        do {
            try variation?.validate(prefix: "variation")
        } catch let error as AppProfileError {
            let option = Self.variationOptions.first { error.message.hasPrefix("variation.\($0.field) ") }
            throw ValidationError(
                error.message.replacingOccurrences(
                    of: "variation.\(option?.field ?? "")", with: option.map { "--\($0.option)" } ?? "variation"))
        }
        if let strayFrameEnds, !(0...100).contains(strayFrameEnds) {
            throw ValidationError("--stray-frame-ends \(strayFrameEnds) is out of range. Use a number from 0 to 100.")
        }
        guard (1...16).contains(devices) else {
            throw ValidationError("--devices \(devices) is out of range. Use a number from 1 to 16.")
        }
        let parts = ios.split(separator: ".", omittingEmptySubsequences: false)
        guard let version = OSVersion(ios), parts.count >= 2, (7...99).contains(version.major) else {
            let hint = OSVersion(ios).map { " (did you mean \($0.major).0?)" } ?? ""
            throw ValidationError(
                "--ios \(ios) is not an iOS version\(hint). Use MAJOR.MINOR[.PATCH] from 7.0 on, e.g. 14.8.")
        }
        if let model, !DeviceModels.isKnown(model) {
            let examples = ["iPhone12,1", "iPhone13,2", "iPhone11,8", "iPhone10,3", "iPhone14,5", "iPhone15,4"]
                .map { "\($0) (\(DeviceModels.marketingName(for: $0)))" }.joined(separator: ", ")
            throw ValidationError("--model \(model) is not a known iPhone ProductType. Use one such as \(examples).")
        }
        if let socket, socket.utf8.count > 103 {
            throw ValidationError(
                "--socket \(socket) is \(socket.utf8.count) bytes long; unix sockets allow at most 103. Use a shorter path, e.g. /tmp/lb.sock."
            )
        }
        if let listen, Self.listenAddress(listen) == nil {
            throw ValidationError(
                "--listen \(listen) is not HOST:PORT. Use e.g. 127.0.0.1:27015 or [::1]:27015 (port 0 picks a free one)."
            )
        }
        if deviceNames.count > devices {
            throw ValidationError(
                "\(deviceNames.count) --device-name values for \(devices) devices. Pass at most one per device, "
                    + "or raise --devices.")
        }
        if let tunneld, !(0...65535).contains(tunneld) {
            throw ValidationError("--tunneld \(tunneld) is not a port. Use 1 to 65535, or 0 for a free one.")
        }
        guard timeScale.isFinite, (OptionCeilings.timeScaleFloor...OptionCeilings.timeScale).contains(timeScale) else {
            throw ValidationError(
                "--time-scale \(timeScale) must be from \(OptionCeilings.timeScaleFloor) to the ceiling of "
                    + "\(DecimalText.fixed(OptionCeilings.timeScale, maxFractionDigits: 0)) (1 = real time, 0.1 = ten "
                    + "times faster).")
        }
    }

    /// Each `PhoneVariation` field and the option that sets it, for messages.
    private static let variationOptions = [
        (field: "launch", option: "launch-noise"), (field: "runOffset", option: "run-offset"),
        (field: "driftLaunches", option: "drift-launches"), (field: "drift", option: "drift"),
        (field: "outlierProbability", option: "outliers"), (field: "outlierSize", option: "outlier-size"),
    ]

    /// `--listen`'s TCP address; port 0 picks a free one (a unix socket is `--socket`).
    private static func listenAddress(_ text: String) -> USBMuxAddress? {
        guard let address = USBMuxAddress(text, anyPort: true), case .tcp = address else { return nil }
        return address
    }

    func run() async throws {
        var addresses: [USBMuxAddress] = []
        var createdFolder: String?
        if let socket {
            addresses.append(.unix(path: socket))
        } else if listen == nil {
            let folder = try Self.makeTempFolder()
            createdFolder = folder
            addresses.append(.unix(path: folder + "/usbmuxd.sock"))
        }
        if let listen, let tcp = Self.listenAddress(listen) { addresses.append(tcp) }
        defer { if let createdFolder { try? FileManager.default.removeItem(atPath: createdFolder) } }

        // Ignore the default handlers first so the dispatch sources, not the kernel, get the signals.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let stopRequests = Self.signalStream([SIGINT, SIGTERM])

        var specs = EmulatedDeviceSpec.lab(count: devices, osVersion: ios, productType: model)
        let names = deviceNames + (hostileNames ? EmulatedDeviceSpec.hostileNames : [])
        for (index, name) in names.prefix(specs.count).enumerated() { specs[index] = specs[index].named(name) }
        let lab = try await EmulatedLab.start(
            on: addresses, devices: specs, services: BuiltInServices.all(seed: seed), timeScale: timeScale)
        for device in lab.devices {
            device.services.variation = variation
            device.services.uikitFrames = strayFrameEnds.map { UIKitFrameEvents(strayEnds: $0) }
        }
        var standIn: TunneldStandIn?
        do {
            if let tunneld { standIn = try await TunneldStandIn.start(lab: lab, port: tunneld) }
        } catch {
            await lab.stop()
            throw CommandFailure(
                .failure,
                "Cannot listen on 127.0.0.1:\(tunneld ?? 0) for --tunneld (\(error)). Pick another port, or 0 for a free one."
            )
        }

        var out = lab.addresses.map { "USBMUXD_SOCKET_ADDRESS=\($0.description)" }
        var table = TextTable(headers: ["UDID", "NAME", "MODEL", "IOS"])
        for device in lab.devices {
            table.append([device.udid, device.name, device.spec.productType, device.spec.osVersion])
        }
        out += ["", table.render()]
        // Unbuffered: a parent process reading our stdout through a pipe must see this right away.
        Terminal.output(out.joined(separator: "\n") + "\n")
        Terminal.note("Emulated lab running (time scale \(timeScale)). In another shell:")
        Terminal.note("  export \(out[0]); idevice_id -l")
        if let standIn {
            Terminal.note("tunneld stand-in on 127.0.0.1:\(standIn.port): launchbench run … --tunneld \(standIn.port)")
        }
        Terminal.note(
            "Press Ctrl-C to stop. On stdin: detach UDID, attach UDID, reboot UDID [SECONDS], heat UDID CELSIUS "
                + "[HALF-LIFE], battery UDID PERCENT, charging UDID on|off, prelaunch UDID BUNDLE [prewarm|closure], "
                + "list, help.")
        Self.readControlLines(for: lab)

        var iterator = stopRequests.makeAsyncIterator()
        let received = await iterator.next()
        // The lab stops (and its socket goes) even when the log cannot be written; the failure is reported after.
        var logFailure: (any Error)?
        if let activityLog {
            do { try Self.writeActivity(of: lab, to: activityLog) } catch { logFailure = error }
        }
        await standIn?.stop()
        await lab.stop()
        Terminal.note("Stopped\(received == SIGTERM ? " (SIGTERM)" : ""); socket removed.")
        if let logFailure { throw logFailure }
    }

    /// One line per activity: `{"udid", "kind", "name", "bundleID", "startedAt" (epoch seconds), "seconds"}`.
    private static func writeActivity(of lab: EmulatedLab, to path: String) throws {
        struct Line: Encodable {
            var udid: String
            var kind: DeviceActivity.Kind
            var name: String
            var bundleID: String?
            var startedAt: Date
            var seconds: Double
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        var text = ""
        for device in lab.devices {
            for activity in device.services.activityHistory {
                text +=
                    String(
                        decoding: try encoder.encode(
                            Line(
                                udid: device.udid, kind: activity.kind, name: activity.name,
                                bundleID: activity.bundleID,
                                startedAt: activity.startedAt, seconds: activity.seconds)), as: UTF8.self) + "\n"
            }
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure(
                .failure,
                "Cannot write the activity log to \(path) (\(error.localizedDescription)). Pass a writable "
                    + "--activity-log path.")
        }
    }

    /// Carries out `LabControl` commands typed (or piped) on stdin while the lab runs, answering each on stdout.
    /// A blocking read on a thread of its own; at end of input (stdin closed or /dev/null) it just stops reading.
    private static func readControlLines(for lab: EmulatedLab) {
        let replies = AsyncStream<String> { continuation in
            Thread.detachNewThread {
                while let line = readLine(strippingNewline: true) { continuation.yield(line) }
                continuation.finish()
            }
        }
        Task {
            for await line in replies {
                if let reply = await LabControl.handle(line, on: lab) { Terminal.output(reply + "\n") }
            }
        }
    }

    /// A fresh, short folder under /tmp (not $TMPDIR, which is long on macOS) for the default socket.
    private static func makeTempFolder() throws -> String {
        var template = Array("/tmp/launchbench-emu-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CommandFailure(
                .failure,
                "Cannot create a folder in /tmp for the socket (\(String(cString: strerror(errno)))). Pass "
                    + "--socket PATH.")
        }
        return String(cString: made)
    }

    /// Delivers each of `signals` as it arrives, through dispatch sources (safe, unlike code in a handler).
    private static func signalStream(_ signals: [Int32]) -> AsyncStream<Int32> {
        AsyncStream { continuation in
            let queue = DispatchQueue(label: "launchbench.emulator.signals")
            // The capture keeps the sources alive until the stream ends.
            let sources = Locked(
                signals.map { number in
                    let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                    source.setEventHandler { continuation.yield(number) }
                    source.resume()
                    return source
                })
            continuation.onTermination = { _ in
                sources.withLock { sources in
                    for source in sources { source.cancel() }
                }
            }
        }
    }
}
