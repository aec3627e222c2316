import Foundation

/// The device's conditions, iteration by iteration: read before each iteration's launches, waited for when
/// `--require` asks (with progress, polled every `poll`, up to `waitLimit`), and added to every sample of the
/// iteration (`conditions` in samples.jsonl) as an enricher; after the last launch, the device's record for
/// run.json.
///
/// A required condition the device does not report never passes silently: the device's notes say so once,
/// and each launch is flagged as taken outside the requirements (or the device stops, as `--outside-requirements
/// stop` asks).
final class ConditionWatch: SampleEnricher, Sendable {
    /// What `DeviceRun` does after the wait.
    enum Outcome: Sendable, Equatable {
        /// Launch (the conditions held, or the launches are recorded outside them).
        case proceed
        /// Stop the device's launches, for this reason.
        case stop(String)
        /// The run was cancelled while waiting.
        case cancelled
    }

    private struct State {
        var current: DeviceConditions?
        var readings: [DeviceConditions] = []
        var iterationsOutside = 0
        var waited: Duration = .zero
        var notes: [String] = []
    }

    private let reader: (any DeviceConditionReading)?
    private let policy: ConditionPolicy
    private let device: DeviceInfo
    private let reporter: any RunReporter
    private let state = Locked(State())

    init(reader: (any DeviceConditionReading)?, policy: ConditionPolicy, device: DeviceInfo, reporter: any RunReporter)
    {
        self.reader = reader
        self.policy = policy
        self.device = device
        self.reporter = reporter
    }

    /// Waits before iteration `iteration` (see `beforeIteration`); the stop that ends the device's launches, if any.
    func stop(before iteration: Int, tally: LaunchTally) async -> DeviceStop? {
        switch await beforeIteration(iteration) {
        case .proceed: return nil
        case .cancelled: return .interrupted(tally)
        case .stop(let reason): return DeviceStop(.stopped, .conditions, note: reason, tally: tally)
        }
    }

    /// Reads the conditions and, with requirements, waits until they hold, up to the policy's limit. The wait's
    /// start and end are device notes (one line each in a CI log); the progress line shows each poll.
    func beforeIteration(_ iteration: Int) async -> Outcome {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + policy.waitLimit
        let limit = "\(Self.seconds(policy.waitLimit)) s"
        var waiting = false
        defer { state.withLock { $0.waited += clock.now - start } }
        while true {
            var conditions = await read()
            let unreported = policy.requirements.filter { $0.holds(in: conditions) == nil }
            let unmet = policy.requirements.filter { $0.holds(in: conditions) == false }
            let unmetText = unmet.map(\.text).joined(separator: ",")
            noteUnreported(unreported, conditions)
            if unmet.isEmpty || clock.now >= deadline {
                let outside = unmet.map(\.text) + unreported.map { "\($0.text) (not reported)" }
                if !outside.isEmpty, policy.fallback == .stop {
                    let reason =
                        unmet.isEmpty
                        ? "The device does not report what --require \(unreported.map(\.text).joined(separator: ",")) "
                            + "needs; its launches were stopped (--outside-requirements stop)."
                        : "--require \(unmetText) still did not hold after \(limit) (\(Self.now(unmet, conditions))); "
                            + "the device's launches were stopped (--outside-requirements stop)."
                    keep(conditions, outside: false)
                    return .stop(reason)
                }
                if !unmet.isEmpty {
                    note(
                        "Iteration \(iteration): --require \(unmetText) still did not hold after \(limit) "
                            + "(\(Self.now(unmet, conditions))); its launches are recorded as taken outside them.")
                } else if waiting {
                    note(
                        "Iteration \(iteration): --require \(policy.requirementText) held after "
                            + "\(Self.seconds(clock.now - start)) s.")
                }
                conditions.outsideRequirements = outside.isEmpty ? nil : outside
                keep(conditions, outside: !outside.isEmpty)
                return .proceed
            }
            if !waiting {
                waiting = true
                note(
                    "Iteration \(iteration): waiting for --require \(unmetText) (\(Self.now(unmet, conditions))), "
                        + "asking every \(Self.seconds(policy.poll)) s for up to \(limit).")
            }
            reporter.report(
                .preparing(
                    udid: device.udid, iteration: iteration,
                    step: "waiting for \(unmetText) (\(Self.now(unmet, conditions)))"))
            let pause = min(policy.poll, deadline - clock.now)
            do { try await Task.sleep(for: pause) } catch { return .cancelled }
        }
    }

    private func note(_ text: String) { reporter.report(.deviceNote(device, text)) }

    /// Seconds in words: `600`, `0.5`.
    static func seconds(_ duration: Duration) -> String {
        DecimalText.fixed(duration.totalSeconds, maxFractionDigits: 3)
    }

    /// The iteration's conditions on each of its samples.
    func enrich(_ sample: inout Sample, of attempt: LaunchAttempt) async -> Bool {
        sample.conditions = state.withLock { $0.current }
        return false
    }

    func finish() async -> [String] { state.withLock { $0.notes } }

    /// The device's record for run.json (`nil` when no reading was taken).
    var record: DeviceConditionsRecord? {
        state.withLock { state in
            guard !state.readings.isEmpty else { return nil }
            var record = DeviceConditionsRecord()
            record.typical = DeviceConditionsRecord.typical(of: state.readings)
            record.first = state.readings.first
            record.last = state.readings.last
            record.readings = state.readings.count
            if !policy.requirements.isEmpty {
                record.required = policy.requirementText
                record.iterationsOutside = state.iterationsOutside
                record.waitedSeconds = (state.waited.totalSeconds * 10).rounded() / 10
            }
            return record
        }
    }

    private func read() async -> DeviceConditions {
        var conditions: DeviceConditions
        if let reader {
            do {
                conditions = try await reader.conditions(of: device.udid)
            } catch {
                let reason = "could not be read: \(DeviceRun.describe(error))"
                conditions = DeviceConditions(
                    unavailable: Dictionary(
                        uniqueKeysWithValues: DeviceCondition.allCases.map { ($0.rawValue, reason) }))
            }
        } else {
            conditions = DeviceConditions(
                unavailable: Dictionary(
                    uniqueKeysWithValues: DeviceCondition.allCases.map {
                        ($0.rawValue, "this driver reads no device conditions")
                    }))
        }
        return noteImpossible(conditions)
    }

    /// The reading bounded (``DeviceConditions/bounded()``); each condition dropped is said once per device.
    private func noteImpossible(_ raw: DeviceConditions) -> DeviceConditions {
        let conditions = raw.bounded()
        let dropped = DeviceCondition.allCases.filter { raw.reports($0) && !conditions.reports($0) }
        for condition in dropped {
            let why = conditions.unavailable?[condition.rawValue] ?? "impossible"
            let note = "Its \(condition.label) is recorded as not reported: \(why)."
            let isNew = state.withLock { state in
                guard !state.notes.contains(note) else { return false }
                state.notes.append(note)
                return true
            }
            if isNew { self.note(note) }
        }
        return conditions
    }

    private func keep(_ conditions: DeviceConditions, outside: Bool) {
        state.withLock { state in
            state.current = conditions
            state.readings.append(conditions)
            if outside { state.iterationsOutside += 1 }
        }
    }

    /// Says once per condition that a requirement cannot be checked on this device, and why.
    private func noteUnreported(_ unreported: [ConditionRequirement], _ conditions: DeviceConditions) {
        for requirement in unreported {
            let why = conditions.unavailable?[requirement.condition.rawValue] ?? "not reported"
            let note =
                "--require \(requirement.text) cannot be checked on this device: its \(requirement.condition.label) "
                + "is not available (\(why)); its launches are flagged as taken outside the requirements, never as "
                + "meeting them."
            let isNew = state.withLock { state in
                guard !state.notes.contains(note) else { return false }
                state.notes.append(note)
                return true
            }
            if isNew { reporter.report(.deviceNote(device, note)) }
        }
    }

    /// The unmet conditions' values now (`temperature 41.2 °C`).
    static func now(_ unmet: [ConditionRequirement], _ conditions: DeviceConditions) -> String {
        unmet.map { requirement -> String in
            let label = requirement.condition.label
            switch requirement.condition {
            case .charging: return conditions.charging == true ? "charging" : "not charging"
            case .lowPowerMode: return "Low Power Mode on"
            case .thermalState: return "thermal state \(conditions.thermalState ?? "?")"
            case .battery:
                return "\(label) \(DecimalText.fixed(conditions.batteryPercent ?? 0, maxFractionDigits: 0)) %"
            case .temperature:
                return "\(label) \(DecimalText.fixed(conditions.temperatureC ?? 0, maxFractionDigits: 1)) °C"
            case .uptime:
                return "\(label) \(DecimalText.fixed(conditions.uptimeSeconds ?? 0, maxFractionDigits: 0)) s"
            case .storage:
                return "\(label) \(DecimalText.fixed(conditions.number(.storage) ?? 0, maxFractionDigits: 1)) GB"
            }
        }.joined(separator: ", ") + " now"
    }
}
