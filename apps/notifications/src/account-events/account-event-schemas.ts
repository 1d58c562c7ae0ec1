import type { SchemaObject } from '@nestjs/swagger';
import { CHANNELS } from '@rp/contracts';

const channels: SchemaObject = { type: 'array', items: { type: 'string', enum: [...CHANNELS] } };

/** The answer of `POST /api/v1/rms/events` (the request's schema comes from `AccountEventRequest`). */
export const ACCOUNT_EVENT_ANSWER_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['success', 'eventId', 'queued', 'suppressed'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    eventId: { type: 'string' },
    queued: { ...channels, description: "Channels of your configurations of the wallet the event is queued to." },
    suppressed: { ...channels, description: "Channels it is held back from by its type's cooldown." },
    duplicate: { type: 'boolean', enum: [true], description: 'The same eventId was taken before: nothing queued.' },
  },
};
