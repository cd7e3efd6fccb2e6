/// An object that ``ThreadLocal`` makes, on each thread that asks for one.
protocol PerThreadObject: AnyObject {
    init()
}
