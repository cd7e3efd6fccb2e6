/// A ``SuccessStep`` made of closures.
struct ClosureStep<Input: Sendable, Decided: Sendable, Output: Sendable>: SuccessStep {
    let decideBody: @Sendable (Result<Input, any Error>) throws -> Outcome<Decided>
    let mayRun: @Sendable (Decided) -> Bool
    let body: @Sendable (Decided) throws -> Output

    func decide(_ result: Result<Input, any Error>) throws -> Outcome<Decided> {
        try decideBody(result)
    }

    func consumerMayRun(_ value: Decided) -> Bool {
        mayRun(value)
    }

    func run(_ value: Decided) throws -> Output {
        try body(value)
    }
}
