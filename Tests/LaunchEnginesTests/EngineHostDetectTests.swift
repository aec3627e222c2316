import Foundation
import LaunchBench
import Testing

@testable import LaunchEngines

/// A `LAUNCHBENCH_PYMOBILEDEVICE3` that points at nothing is named in the advice, with its fix; the install
/// command alone would send the user to install what they already have.
@Suite struct EngineHostDetectTests {
    @Test(arguments: ["/nonexistent/pymobiledevice3", "/etc"])
    func aVariablePointingAtNoProgramIsNamedWithItsFix(value: String) {
        let host = EngineHost.detect(environment: ["LAUNCHBENCH_PYMOBILEDEVICE3": value, "PATH": "/nonexistent"])
        #expect(host.pymobiledevice3 == nil)
        let device = EngineFixtures.device(ios: "17.5")
        for selection in [EngineSelection.auto, .forced(.pymobiledevice3)] {
            guard case .unavailable(let advice) = EngineChoice.decide(for: device, selection: selection, host: host)
            else {
                Issue.record("\(selection): an engine was chosen without pymobiledevice3")
                continue
            }
            #expect(advice.contains("LAUNCHBENCH_PYMOBILEDEVICE3 is set to \(value)"), "\(advice)")
            #expect(advice.contains("or unset it"), "\(advice)")
            #expect(advice.contains(EngineChoice.pymobiledevice3Install), "\(advice)")  // in case it is not installed
        }
    }

    @Test func anUnsetVariableIsNoProblem() {
        let host = EngineHost.detect(environment: ["PATH": "/nonexistent"])
        #expect(host.pymobiledevice3Problem == nil)
    }
}
