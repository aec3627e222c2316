extension LaunchPipeline {
    /// The launches that ended on dyld's statistics alone before a later launch showed that the app prints
    /// `firstFrame`/`done` (LaunchProbe): had the run known, it would have waited for the markers, so such a
    /// launch most likely hung after pre-main. It is re-judged a timeout in samples.jsonl, so no hang passes as
    /// `ok` (Documentation/ResultsFolder.md, "Launches that hang after pre-main"). Returns the re-judged samples.
    func rejudge(_ launches: Set<LaunchSlot>) async throws -> [Sample] {
        let message =
            "dyld's statistics arrived, but not the [launchbench] firstFrame/done markers that later launches of "
            + "this app printed; the app was ended \(LaunchVerdict.formatSeconds(plan.grace)) s after its statistics "
            + "(it hung after pre-main?). Re-judged when the run learned that the app prints markers."
        let corrected = try await store.rewrite { [runID, udid = device.udid, bundleID = plan.app.bundleID] sample in
            sample.runID == runID && sample.deviceUDID == udid && sample.appBundleID == bundleID
                && sample.status == .ok && launches.contains(LaunchSlot(sample))
        } _: { sample in
            sample.status = .timeout
            sample.message = message
        }
        for sample in corrected {
            reporter.report(
                .deviceNote(
                    device, "launch \(sample.iteration) \(sample.kind.rawValue) re-judged: timeout (no end markers)"))
        }
        return corrected
    }
}
