/**
 * `events$` as the library hands it out. rxjs reports an error thrown by a subscriber's own
 * callback by rethrowing it from a timer, which ends the whole process: one bad `next`
 * handler would take every run in the process down with it. Here such an error is
 * contained: that subscriber gets no further events, the run and every other subscriber go
 * on, and the error is emitted as a process warning (`process.on('warning')` sees it; Node
 * prints it unless run with --no-warnings). Operators (`pipe`) keep the containment.
 */
import { Observable, Subscriber, type Observer, type Operator, type Subscription } from 'rxjs';

type ObserverArg<T> = Partial<Observer<T>> | ((value: T) => void) | null | undefined;

export class ContainedObservable<T> extends Observable<T> {
  static of<T>(source: Observable<T>): ContainedObservable<T> {
    return new ContainedObservable<T>((subscriber) => source.subscribe(subscriber));
  }

  override lift<R>(operator?: Operator<T, R>): Observable<R> {
    const lifted = new ContainedObservable<R>();
    lifted.source = this;
    lifted.operator = operator;
    return lifted;
  }

  override subscribe(observer?: ObserverArg<T>): Subscription {
    // An operator's own subscriber links teardown through itself: only user callbacks are wrapped.
    if (observer instanceof Subscriber) return super.subscribe(observer);
    const given: Partial<Observer<T>> = typeof observer === 'function' ? { next: observer } : (observer ?? {});
    let dead = false;
    let subscription: Subscription | null = null;
    const guard = <A extends unknown[]>(call: ((...args: A) => void) | undefined) =>
      call === undefined
        ? undefined
        : (...args: A) => {
            if (dead) return;
            try {
              call.apply(given, args);
            } catch (error) {
              dead = true;
              subscription?.unsubscribe();
              process.emitWarning(error instanceof Error ? error : new Error(String(error)), {
                code: 'NQUEENS_ISLANDS_SUBSCRIBER_ERROR',
                detail: 'an events$ subscriber threw; it gets no further events, the run goes on',
              });
            }
          };
    subscription = super.subscribe({ next: guard(given.next), error: guard(given.error), complete: guard(given.complete) } as Partial<
      Observer<T>
    >);
    if (dead) subscription.unsubscribe();
    return subscription;
  }
}
