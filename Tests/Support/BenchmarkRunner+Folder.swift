import Foundation
import LaunchBench

extension BenchmarkRunner {
    /// Selects the plan's devices and runs it into `folder`, for a test: without the device locks and the
    /// signal handling that `launchbench run` adds around the same `run(_:devices:store:)`.
    package func run(_ plan: RunPlan, into folder: URL) async throws -> RunResult {
        let devices = try await selectDevices(for: plan).devices
        let store = try ResultsStore(folder: try OutputFolder.prepare(output: folder, workingDirectory: folder))
        return try await run(plan, devices: devices, store: store)
    }
}
