import Foundation
import LaunchBench

/// Shows a run's progress on stderr: on a terminal, one live line per device redrawn in place;
/// otherwise (CI logs, pipes) one plain line per launch.
final class RunProgressView: RunReporter, Sendable {
    private struct DeviceLine {
        var device: DeviceInfo
        var iteration = 0
        var iterations = 0
        var step = "waiting"
        var lastCold: Sample?
        var lastWarm: Sample?
        var failures = 0
        var finished: String?
    }

    /// The live block: its lines and how many of them are on the screen. Terminal writes happen with the
    /// lock held, so the block is drawn by one thread at a time.
    private struct Screen {
        var lines: [DeviceLine] = []
        var drawnLines = 0
    }

    private let live: Bool
    private let color: Bool
    private let screen = Locked(Screen())

    /// - Parameter live: redraw lines in place (only when stderr is a terminal).
    init(live: Bool = Terminal.stderrIsInteractive, color: Bool = Terminal.colorEnabled(for: STDERR_FILENO)) {
        self.live = live
        self.color = color
    }

    func report(_ event: RunEvent) {
        screen.withLock { screen in report(event, on: &screen) }
    }

    private func report(_ event: RunEvent, on screen: inout Screen) {
        switch event {
        case .deviceNote(_, let text):
            printAbove("note: \(text)", &screen)
        case .deviceSkipped(_, let text):
            printAbove(paint("skipped: \(text)", "33"), &screen)
        case .deviceUnreadable(let device):
            printAbove(paint("skipped: \(device.message)", "33"), &screen)
        case .deviceStarted(let device, let iterations):
            var line = self.line(for: device, screen)
            line.iterations = iterations
            line.step = "starting"
            update(line, &screen)
        case .preparing(let udid, let iteration, let step):
            guard var line = screen.lines.first(where: { $0.device.udid == udid }) else { return }
            line.iteration = iteration
            line.step = step + "…"
            update(line, &screen)
        case .launchFinished(let sample):
            guard var line = screen.lines.first(where: { $0.device.udid == sample.deviceUDID }) else { return }
            line.iteration = sample.iteration
            if sample.kind == .cold { line.lastCold = sample } else { line.lastWarm = sample }
            if sample.status.isFailure { line.failures += 1 }
            line.step = "launching…"
            if live {
                update(line, &screen)
            } else {
                update(line, redraw: false, &screen)
                Terminal.note(plainLine(sample, line))
            }
            if sample.status.isFailure, let message = sample.message, live {
                printAbove(
                    paint(
                        "\(label(line.device)) #\(sample.iteration) \(sample.kind.rawValue): \(UserText.logLine(message))",
                        "31"),
                    &screen)
            }
        case .deviceFinished(let udid, let outcome, let message):
            guard var line = screen.lines.first(where: { $0.device.udid == udid }) else { return }
            line.finished = outcome.rawValue
            update(line, &screen)
            if let message { printAbove("\(label(line.device)): \(UserText.logLine(message))", &screen) }
            if !live { Terminal.note("\(label(line.device)) finished: \(outcome.rawValue)") }
        }
    }

    /// Leaves the live block as it is (the final state stays visible above the summary).
    func finish() {
        screen.withLock { $0.drawnLines = 0 }
    }

    // MARK: Drawing

    private func line(for device: DeviceInfo, _ screen: Screen) -> DeviceLine {
        screen.lines.first { $0.device.udid == device.udid } ?? DeviceLine(device: device)
    }

    private func update(_ line: DeviceLine, redraw: Bool = true, _ screen: inout Screen) {
        if let index = screen.lines.firstIndex(where: { $0.device.udid == line.device.udid }) {
            screen.lines[index] = line
        } else {
            screen.lines.append(line)
        }
        if live && redraw { draw(&screen) }
    }

    private func draw(_ screen: inout Screen) {
        var text = screen.drawnLines > 0 ? "\u{1B}[\(screen.drawnLines)A" : ""
        for line in screen.lines { text += "\r\u{1B}[2K" + render(line) + "\n" }
        screen.drawnLines = screen.lines.count
        Terminal.write(text, to: STDERR_FILENO)
    }

    /// Prints a message above the live block (or as a plain line), then redraws the block.
    private func printAbove(_ message: String, _ screen: inout Screen) {
        guard live else {
            Terminal.note(message)
            return
        }
        var text = screen.drawnLines > 0 ? "\u{1B}[\(screen.drawnLines)A\u{1B}[J" : ""
        text += message + "\n"
        screen.drawnLines = 0
        Terminal.write(text, to: STDERR_FILENO)
        if !screen.lines.isEmpty { draw(&screen) }
    }

    private func render(_ line: DeviceLine) -> String {
        var parts = [
            label(line.device).padding(toLength: max(28, label(line.device).count), withPad: " ", startingAt: 0)
        ]
        parts.append("\(line.iteration)/\(line.iterations)")
        parts.append("cold " + (line.lastCold.map(Self.headline) ?? "–"))
        parts.append("warm " + (line.lastWarm.map(Self.headline) ?? "–"))
        if let steps = Self.stepTimes(cold: line.lastCold, warm: line.lastWarm) { parts.append(steps) }
        if line.failures > 0 { parts.append(paint("\(line.failures) failed", "31")) }
        parts.append(line.finished.map { paint($0, "1") } ?? line.step)
        return parts.joined(separator: "  ")
    }

    private func plainLine(_ sample: Sample, _ line: DeviceLine) -> String {
        var text = "\(label(line.device)) \(sample.iteration)/\(line.iterations) \(sample.kind.rawValue)"
        if sample.kind == .warm && sample.launchIndex > 1 { text += "\(sample.launchIndex)" }
        text += " \(sample.status.rawValue)"
        if sample[.totalPremainMs] != nil || sample[.firstFrameMs] != nil { text += ": \(Self.headline(sample))" }
        if let wall = sample[.wallMs] { text += ", wall \(Self.ms(wall))" }
        if let steps = sample.phases.summary { text += "; \(steps)" }
        if sample.status != .ok, let message = sample.message { text += " — \(message)" }
        return text
    }

    /// What the phone reports is any text: the live block's lines must stay one line each.
    private func label(_ device: DeviceInfo) -> String {
        UserText.logLine("\(device.modelName) · iOS \(device.osVersion)")
    }

    /// Pre-main when dyld printed it, else first frame, else the status; a launch whose device lost its pre-main
    /// source (`none`) says so on its line, since its first frame alone is not what the device would give.
    static func headline(_ sample: Sample) -> String {
        if let premain = sample[.totalPremainMs] { return "pre-main \(ms(premain))" }
        let missing = sample.premainSource == .notMeasured ? " (no pre-main: kdebug not read)" : ""
        if let frame = sample[.firstFrameMs] { return "first frame \(ms(frame))" + missing }
        return sample.status.rawValue + missing
    }

    /// Where the last iteration's time went: `reinstall 0.81 s (upload 0.01 s), cold 0.27 s, warm 0.17 s`.
    static func stepTimes(cold: Sample?, warm: Sample?) -> String? {
        PhaseTimings.iterationSummary(
            cold: cold?.phases, warm: warm.flatMap { $0.iteration == cold?.iteration ? $0.phases : nil })
    }

    static func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }

    private func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
}
