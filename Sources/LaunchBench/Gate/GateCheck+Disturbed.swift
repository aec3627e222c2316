extension GateCheck {
    /// The gate's notes on the launches the phone disturbed on one side (set aside after a prelaunch or a
    /// rebuilt closure, or counted with `--count-prelaunched`), device by device: a verdict over fewer cold
    /// launches than the run made says why.
    static func disturbedNotes(_ input: GateInput, side: String) -> [String] {
        input.launches.summary.devices.flatMap { device in
            device.disturbed.remarks.map { "\(side) \(input.path): \(device.device.name): \($0)" }
        }
    }
}
