extension BenchmarkRunner {
    /// The devices whose kdebug session is missing although the plan asked for it by name: `--premain kdebug`
    /// (a quieter run without pre-main phases is not what was asked for) or `--launcher processcontrol` (which
    /// goes over that session's connection). Each is recorded as skipped with the cause and the fix, as a busy
    /// device is (exit 3); the others go on, a lost session said once in their note (under `auto` each launch
    /// says it too, see `LaunchPipeline.premainMissing`). Returns the positions in `measured` still measured.
    func refuseLostTraces(
        _ plan: RunPlan, devices: [DeviceInfo], measured: [Int], traces: [DeviceTrace],
        outcomes: inout [RunManifest.DeviceOutcome]
    ) async -> [Int] {
        var kept: [Int] = []
        for (position, index) in measured.enumerated() {
            let device = devices[index]
            let trace = traces[position]
            if let reason = Self.refusal(plan, device: device, trace: trace) {
                outcomes[index].outcome = .skipped
                outcomes[index].notes.append(reason)
                reporter.report(.deviceSkipped(device, reason))
                await trace.recorder?.stop()
                continue
            }
            if trace.lost != nil, let note = trace.note { reporter.report(.deviceNote(device, note)) }
            kept.append(position)
        }
        return kept
    }

    /// Why `device` cannot be measured as the plan asks, with the fix; `nil` when it can.
    static func refusal(_ plan: RunPlan, device: DeviceInfo, trace: DeviceTrace) -> String? {
        let label = "\(device.name) (\(device.modelName), \(device.udid))"
        if plan.premain == .kdebug, let lost = trace.lost {
            return "Skipping \(label) (--premain kdebug): \(lost) Fix that, or run with --premain auto to measure "
                + "this device without pre-main phases."
        }
        if plan.launcher == .processControl, trace.processControl == nil {
            let why =
                trace.lost
                ?? (trace.recorder == nil
                    ? "the device runs no kdebug session here (its pre-main source is not kdebug)."
                    : "its kdebug session does not offer process control.")
            return "Skipping \(label) (--launcher processcontrol, which goes over the device's kdebug session): "
                + why + " Fix that, or run with --launcher auto to launch through debugserver."
        }
        return nil
    }
}
