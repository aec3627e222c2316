extension DeviceRun {
    /// The plan's app's initializer names, read when kdebug times the device's pre-main (else never used);
    /// what could not be read is the device's note, once.
    static func initializerNames(_ plan: RunPlan, device: DeviceInfo, reporter: any RunReporter) -> InitializerNames? {
        guard plan.premainSource(for: device) == .kdebug || plan.crossChecksPremain(on: device) else { return nil }
        let names = InitializerNames.load(app: plan.app, sources: plan.initializerSymbols)
        for note in names.notes { reporter.report(.deviceNote(device, note)) }
        return names
    }
}
