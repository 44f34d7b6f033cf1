import { describe, expect, it } from 'vitest';
import { conversationsErrorStatus } from './errorCodes/conversations.js';
import { groupsErrorStatus } from './errorCodes/groups.js';
import { managementErrorStatus } from './errorCodes/management.js';
import { messagesErrorStatus } from './errorCodes/messages.js';
import { notificationsErrorStatus } from './errorCodes/notifications.js';
import { usersErrorStatus } from './errorCodes/users.js';
import { baseErrorStatus } from './errors.js';

describe('the error catalogue', () => {
  it('gives each code one status: no area module redefines a code another one (or the base list) has', () => {
    const modules = [baseErrorStatus, usersErrorStatus, groupsErrorStatus, messagesErrorStatus, conversationsErrorStatus, managementErrorStatus, notificationsErrorStatus];
    const all = modules.flatMap((module) => Object.keys(module));
    expect(all.filter((code, i) => all.indexOf(code) !== i)).toEqual([]);
  });
});
