/// One launch found in a kdebug trace: the process, and its phases as `DyldLaunchPhases` measures them.
package struct KdebugLaunch: Sendable {
    /// The exec'd name (`TRACE_STRING_EXEC`, else the thread map's), nil when the trace names neither.
    package var executable: String?
    /// The process id, nil when the trace does not map the launch's thread to one.
    package var pid: Int?
    /// The phases.
    package var phases: DyldLaunchPhases

    /// A launch from its parts.
    /// - Parameters:
    ///   - executable: the exec'd name.
    ///   - pid: the process id.
    ///   - phases: the phases.
    package init(executable: String?, pid: Int?, phases: DyldLaunchPhases) {
        self.executable = executable
        self.pid = pid
        self.phases = phases
    }

    /// The `samples.jsonl` columns this launch fills, in that file's order; nil where the trace cannot tell.
    package var metrics: [(Metric, Double?)] { Self.columns.map { ($0, Self.value($0, of: phases)) } }

    /// The metric columns ``metrics`` gives, for headers.
    package static let columns: [Metric] = [
        .totalPremainMs, .processCreationMs, .dylibLoadingMs, .rebaseBindingMs, .objcSetupMs, .initializerMs,
        .closureBuildMs, .firstFrameMs, .pageIns, .pageInMs, .zeroFillFaults, .cowFaults, .compressorFaults,
    ]

    /// The value of one of ``columns`` in `phases`; nil for a metric kdebug does not give.
    package static func value(_ metric: Metric, of phases: DyldLaunchPhases) -> Double? {
        switch metric {
        case .totalPremainMs: return phases.totalPremainMs
        case .processCreationMs: return phases.processCreationMs
        case .dylibLoadingMs: return phases.dylibLoadingMs
        case .rebaseBindingMs: return phases.rebaseBindingMs
        case .objcSetupMs: return phases.objcSetupMs
        case .initializerMs: return phases.initializerMs
        case .closureBuildMs: return phases.closureBuildMs
        case .firstFrameMs: return phases.firstFrameMs
        case .pageIns: return phases.pageIns.map { Double($0.pageIns) }
        case .pageInMs: return phases.pageIns?.pageInMs
        case .zeroFillFaults: return phases.pageIns.map { Double($0.zeroFill) }
        case .cowFaults: return phases.pageIns.map { Double($0.copyOnWrite) }
        case .compressorFaults: return phases.pageIns.map { Double($0.compressor) }
        default: return nil
        }
    }

    /// Whether the launch's executable is `name`: exec names are cut (to 16 bytes in the thread map, 31 in
    /// `TRACE_STRING_EXEC`), so a name of 15 bytes or more that starts `name` matches too.
    /// - Parameter name: the executable's full name.
    /// - Returns: true when it is this launch's.
    package func isProcess(named name: String) -> Bool {
        executable.map { DyldLaunchSelection.execName($0, matches: name) } ?? false
    }
}

/// Every app launch in a trace, such as a whole-session capture from another tool, in the order they start.
package enum KdebugLaunches {
    /// Finds the launches: each `TRACE_DATA_EXEC` whose thread then emits dyld timing events (class 31,
    /// subclass 7) is one. On iOS one pid execs twice (launchd spawns xpcproxy, which execs the app), so each
    /// launch is measured on the records from its own exec on. Without exec events (class 7 not traced), each
    /// thread that starts dyld's launch is one. The records go through ``KdebugLaunchFinder`` in time order, so
    /// each launch reads only its own process's records (and the kernel's lost-event reports), up to its first
    /// frame: a whole-session capture of many launches costs one pass.
    /// - Parameters:
    ///   - trace: the decoded trace.
    ///   - timebase: the device's mach timebase.
    /// - Returns: the launches in start order.
    package static func find(in trace: KdebugTrace, timebase: MachTimebase) -> [KdebugLaunch] {
        let sorted = trace.records.enumerated().sorted {
            ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset)
        }
        var finder = KdebugLaunchFinder(threads: trace.header?.threads ?? [], timebase: timebase)
        for (_, record) in sorted { finder.consume(record) }
        return finder.finish().launches
    }
}
