import Testing
@testable import Plugboard

/// The phase a joining library is caught up to: the launch options last dispatched, whether they
/// came again as the same value or as new text.
@Suite struct ApplicationPhaseTests {
    @Test func theLastLaunchOptionsAreKept() {
        var phase = ApplicationPhase()
        #expect(phase.catchUp.isEmpty)
        let first: EventText = "{\"first\":true}"
        phase.note(.willFinishLaunching(options: first))
        phase.note(.didFinishLaunching(options: first))
        phase.note(.didFinishLaunching(options: first))
        #expect(phase.catchUp == [.willFinishLaunching(options: first), .didFinishLaunching(options: first)])
        phase.note(.didFinishLaunching(options: EventText(bytes: Array("{\"second\":true}".utf8))))
        phase.note(.didBecomeActive)
        phase.note(.memoryWarning)
        #expect(phase.catchUp == [.willFinishLaunching(options: first),
                                  .didFinishLaunching(options: EventText(bytes: Array("{\"second\":true}".utf8))),
                                  .didBecomeActive])
        phase.note(.didFinishLaunching(options: "{}"))
        #expect(phase.catchUp[1] == .didFinishLaunching(options: "{}"))
        phase.note(.willTerminate)
        #expect(phase.catchUp.isEmpty)
    }
}
