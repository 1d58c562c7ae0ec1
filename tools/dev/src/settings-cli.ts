import { join } from 'node:path';
import { AppDefinition, AppConfig, secretSettingsOf, settingNamesOf } from '@rp/platform';
import { getMetadataStorage } from 'class-validator';
import { WORKSPACE_ROOT } from './app-process';
import { APP_SLOTS } from './launch-plan';

export interface SettingDescription {
  name: string;
  default?: unknown;
  required: boolean;
  secret: boolean;
}

/** The settings an app declares, read from its definition (loaded by path, as the launcher runs it). */
export function describeSettings(app: string): SettingDescription[] {
  if (!APP_SLOTS.some((slot) => slot.app === app)) throw new Error(`unknown app "${app}"`);
  const module = require(join(WORKSPACE_ROOT, 'apps', app, 'src', `${app}.app.ts`)) as Record<
    string,
    AppDefinition<AppConfig>
  >;
  const configClass = module[`${app}App`].config;
  const defaults = new configClass() as unknown as Record<string, unknown>;
  const secrets = secretSettingsOf(defaults);
  const rules = getMetadataStorage().getTargetValidationMetadatas(configClass, '', true, false);
  return settingNamesOf(configClass).map((name) => ({
    name,
    default: defaults[name],
    required: rules.some((rule) => rule.propertyName === name && rule.name === 'isDefined'),
    secret: secrets.has(name),
  }));
}
