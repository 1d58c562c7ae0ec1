import { join } from 'node:path';
import { AppConfig, AppDefinition, loadConfig, secretSettingsOf, settingNamesOf } from '@rp/platform';
import { getMetadataStorage } from 'class-validator';
import { WORKSPACE_ROOT } from './app-process';
import { APP_SLOTS } from './launch-plan';

export interface SettingDescription {
  name: string;
  default?: unknown;
  required: boolean;
  secret: boolean;
}

/** An app's definition, loaded by path as the launcher runs it (no tool imports an app). */
function definitionOf(app: string): AppDefinition<AppConfig> {
  if (!APP_SLOTS.some((slot) => slot.app === app)) throw new Error(`unknown app "${app}"`);
  const module = require(join(WORKSPACE_ROOT, 'apps', app, 'src', `${app}.app.ts`)) as Record<
    string,
    AppDefinition<AppConfig>
  >;
  return module[`${app}App`];
}

/** The settings an app declares, with their defaults. */
export function describeSettings(app: string): SettingDescription[] {
  const configClass = definitionOf(app).config;
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

/** Validates an environment against an app's settings exactly as the app does at boot; throws `ConfigError`. */
export function checkSettings(app: string, env: Record<string, string | undefined>): void {
  loadConfig(definitionOf(app).config, env);
}
