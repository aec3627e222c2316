/// Process control that tells the device's kdebug recorder the pid of each launch it starts, so the recorder
/// measures that process and no other exec of the app: the phone's own prelaunch can reach the trace after
/// the mark, and is then as new as anything the launch has sent yet.
struct PidReportingProcessControl: ProcessControl {
    let base: any ProcessControl
    let recorder: KdebugLaunchRecorder

    func launch(_ request: LaunchRequest) async throws -> ControlledProcess {
        let process = try await base.launch(request)
        await recorder.launched(pid: process.pid)
        return process
    }

    func kill(_ pid: Int) async throws {
        try await base.kill(pid)
    }
}
