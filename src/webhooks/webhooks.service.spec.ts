import { BadRequestException } from '@nestjs/common';
import { subscribedEvents } from './webhooks.service';

describe('subscribedEvents', () => {
  it('subscribes to every event when none are named', () => {
    expect(subscribedEvents(undefined)).toEqual(['core.ready', 'core.failed']);
  });

  it('keeps a named subset as given', () => {
    expect(subscribedEvents(['core.failed'])).toEqual(['core.failed']);
  });

  // The dashboard's form sends nothing for unticked boxes and repeats a field as often as it is sent.
  it('refuses an empty list and a repeated event', () => {
    expect(() => subscribedEvents([])).toThrow(BadRequestException);
    expect(() => subscribedEvents([])).toThrow(/choose at least one event/);
    expect(() => subscribedEvents(['core.ready', 'core.ready'])).toThrow(/must not repeat/);
  });
});
