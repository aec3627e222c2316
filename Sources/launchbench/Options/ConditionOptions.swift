import ArgumentParser
import LaunchBench

/// `run`'s device conditions: what each iteration must wait for, how long, and what happens after.
struct ConditionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Conditions each iteration waits for, comma-separated: charging, not-charging, battery>=N (%), "
                + "temperature<=N (°C), storage>=N (GB free), uptime>=N (s), low-power-mode-off, "
                + "thermal-state<=fair. A condition the device does not report is never taken as met.",
            valueName: "conditions"))
    var require: String?

    @Option(
        name: .customLong("require-wait"),
        help: ArgumentHelp(
            "The longest wait for --require before one iteration, in seconds (default 600); also how long a launch "
                + "waits for a locked phone to be unlocked.", valueName: "seconds"))
    var requireWait: Double = 600

    @Option(
        name: .customLong("require-poll"),
        help: ArgumentHelp(
            "How often the device is asked while waiting, in seconds (1 to 3600, default 10).",
            valueName: "seconds"))
    var requirePoll: Double = 10

    @Option(
        name: .customLong("outside-requirements"),
        help: ArgumentHelp(
            "When the wait runs out: record (launch, flagging the samples) or stop (end the device's launches).",
            valueName: "choice"))
    var outsideRequirements: ConditionPolicy.Fallback = .record

    func validate() throws {
        do {
            _ = try ConditionRequirement.parseList(require ?? "")
        } catch {
            throw ValidationError(error.description)
        }
        let durations: [(Double, String, Bool, Double?, String)] = [
            (requireWait, "--require-wait", true, nil, "600"),
            (requirePoll, "--require-poll", false, OptionCeilings.requirePollFloorSeconds, "10"),
        ]
        for (seconds, option, allowsZero, minimum, example) in durations {
            if let problem = OptionCeilings.problem(
                seconds: seconds, option: option, ceiling: OptionCeilings.settleSeconds, allowsZero: allowsZero,
                minimum: minimum, example: example)
            {
                throw ValidationError(problem)
            }
        }
    }

    /// The run plan's condition policy.
    var policy: ConditionPolicy {
        ConditionPolicy(
            requirements: (try? ConditionRequirement.parseList(require ?? "")) ?? [],
            waitLimit: .seconds(clamping: requireWait), poll: .seconds(clamping: requirePoll),
            fallback: outsideRequirements)
    }
}

extension ConditionPolicy.Fallback: ExpressibleByArgument {}
